package org.tracewire.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.List;
import org.tracewire.format.DataLoc;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;

/**
 * Rebuilds an {@link EventRecord} from a decoded frame, so a frame can be rendered and checked
 * like a record read from the ring buffer: the common fields from the header, each own field's
 * TLV value at the field's offset, dynamic fields ({@code __data_loc}, {@code __rel_loc}) appended
 * after the fixed part with a fresh location word. Fields whose TLV is missing (a truncated
 * frame) stay zero.
 */
public final class WireRecords {
    private WireRecords() {
    }

    /**
     * @param frame    a decoded frame
     * @param format   the format of its event (by the header's event id)
     * @param longSize the traced kernel's {@code sizeof(long)} (the frame does not carry it)
     * @return the record; its time stamp is the frame's time (ns since the epoch, or raw clock)
     * @throws WireFormatException when a value does not fit its field
     */
    public static EventRecord toRecord(WireFrame frame, EventFormat format, int longSize) {
        WireHeader h = frame.header();
        ByteOrder order = (h.flags() & WireHeader.FLAG_LITTLE_ENDIAN) != 0 ? ByteOrder.LITTLE_ENDIAN : ByteOrder.BIG_ENDIAN;
        List<Field> own = format.fields();
        int fixed = format.fixedSize();
        int dynamic = 0;
        for (int i = 0; i < own.size(); i++) {
            Tlv t = frame.tlv(i + 1);
            if (t != null && (own.get(i).kind().isDynamic() || own.get(i).isFlexible())) {
                dynamic += t.length();
            }
        }
        ByteBuffer p = ByteBuffer.allocate(fixed + dynamic).order(order);
        put(p, format.field("common_type"), h.eventId());
        put(p, format.field("common_flags"), h.commonFlags());
        put(p, format.field("common_preempt_count"), h.preemptCount());
        put(p, format.field("common_pid"), h.pid());
        int tail = fixed;
        for (int i = 0; i < own.size(); i++) {
            Field f = own.get(i);
            Tlv t = frame.tlv(i + 1);
            if (t == null) {
                continue;
            }
            byte[] v = t.value();
            if (f.kind().isDynamic()) {
                p.putInt(f.offset(), DataLoc.word(tail, v.length, f.offset(), f.relative()));
                p.put(tail, v);
                tail += v.length;
            } else if (f.isFlexible()) {
                if (f.offset() + v.length > p.limit()) {
                    throw new WireFormatException(0, "field " + f.name() + " of " + v.length + " bytes does not fit");
                }
                p.put(f.offset(), v);
            } else {
                if (v.length > f.size()) {
                    throw new WireFormatException(0, "field " + f.name() + ": " + v.length + " bytes for a "
                            + f.size() + "-byte field");
                }
                p.put(f.offset(), v);
            }
        }
        return new EventRecord(format, new KernelLayout(order, longSize), h.cpu(), h.timeNs(), p);
    }

    private static void put(ByteBuffer p, Field f, long v) {
        if (f == null || f.kind() != FieldKind.INTEGER) {
            return;
        }
        switch (f.size()) {
            case 1 -> p.put(f.offset(), (byte) v);
            case 2 -> p.putShort(f.offset(), (short) v);
            case 4 -> p.putInt(f.offset(), (int) v);
            case 8 -> p.putLong(f.offset(), v);
            default -> { }
        }
    }
}
