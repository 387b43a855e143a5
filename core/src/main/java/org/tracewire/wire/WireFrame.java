package org.tracewire.wire;

import java.util.List;
import java.util.Objects;

/**
 * One tracewire frame: Ethernet II header (destination, source, EtherType 0x88B5), the fixed
 * {@link WireHeader}, then the TLVs ({@code docs/wire-format.md}). Immutable; no FCS.
 *
 * @param destination Ethernet destination (normally {@link MacAddress#TRACEWIRE})
 * @param source      Ethernet source (the traced host, {@link MacAddress#localHost()})
 * @param header      the fixed header
 * @param tlvs        the TLVs in wire order; their encoded sizes must sum to at most 65535
 */
public record WireFrame(MacAddress destination, MacAddress source, WireHeader header, List<Tlv> tlvs) {
    /** Bytes of the Ethernet II header (two addresses and the EtherType). */
    public static final int ETHERNET_HEADER = 14;
    /** IEEE 802 "local experimental" EtherType 1. */
    public static final int ETHERTYPE = 0x88B5;
    /** The default maximum frame size: Ethernet header + MTU 1500. */
    public static final int DEFAULT_MAX_FRAME = 1514;
    /** The smallest maximum frame size an encoder accepts: Ethernet header + fixed header. */
    public static final int MIN_MAX_FRAME = ETHERNET_HEADER + WireHeader.SIZE;
    /** The largest maximum frame size an encoder accepts. */
    public static final int MAX_MAX_FRAME = 65535;

    public WireFrame {
        Objects.requireNonNull(destination, "destination");
        Objects.requireNonNull(source, "source");
        Objects.requireNonNull(header, "header");
        tlvs = List.copyOf(tlvs);
        if (tlvLength(tlvs) > 0xffff) {
            throw new IllegalArgumentException("TLVs of " + tlvLength(tlvs) + " bytes exceed 65535");
        }
    }

    /** Sum of the TLVs' encoded sizes. */
    public int tlvLength() {
        return tlvLength(tlvs);
    }

    private static int tlvLength(List<Tlv> tlvs) {
        int n = 0;
        for (Tlv t : tlvs) {
            n += t.size();
        }
        return n;
    }

    /** Exact encoded size in bytes: 14 + 48 + TLV bytes. */
    public int size() {
        return ETHERNET_HEADER + WireHeader.SIZE + tlvLength();
    }

    /** The TLV of a type, or null. */
    public Tlv tlv(int type) {
        for (Tlv t : tlvs) {
            if (t.type() == type) {
                return t;
            }
        }
        return null;
    }

    /** The event name of the type-0 TLV, or null when absent. */
    public String eventName() {
        Tlv t = tlv(Tlv.EVENT_NAME);
        return t == null ? null : t.text();
    }
}
