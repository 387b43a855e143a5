package org.tracewire.pcapng;

import java.util.Objects;

/**
 * An interface of a pcapng section, written as an Interface Description Block
 * (draft-ietf-opsawg-pcapng, section 4.2) with options {@code if_name} (2),
 * {@code if_description} (3) and {@code if_tsresol} (9) = 9, so every time stamp of its packets
 * counts nanoseconds since 1970-01-01 UTC.
 *
 * @param linkType    a LINKTYPE_ value: {@link PcapngWriter#LINKTYPE_ETHERNET} for tracewire frames
 * @param snapLength  largest captured length in bytes (0 = unlimited); longer packets are cut
 * @param name        {@code if_name}, e.g. {@code "tracewire0"} (empty = no option)
 * @param description {@code if_description}, e.g. {@code "ftrace events of host vm"} (empty = no option)
 */
public record InterfaceInfo(int linkType, int snapLength, String name, String description) {
    public InterfaceInfo {
        if (linkType < 0 || linkType > 0xffff) {
            throw new IllegalArgumentException("link type " + linkType + " outside 0..65535");
        }
        if (snapLength < 0) {
            throw new IllegalArgumentException("snap length " + snapLength + " is negative");
        }
        Objects.requireNonNull(name, "name");
        Objects.requireNonNull(description, "description");
    }

    /** An Ethernet interface. */
    public static InterfaceInfo ethernet(String name, String description, int snapLength) {
        return new InterfaceInfo(PcapngWriter.LINKTYPE_ETHERNET, snapLength, name, description);
    }
}
