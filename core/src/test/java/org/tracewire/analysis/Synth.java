package org.tracewire.analysis;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** Records built field by field on the snapshot's formats (little-endian, 64-bit), for cases the fixture lacks. */
final class Synth {
    static final KernelLayout LAYOUT = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
    private static Tracefs snapshot;

    private Synth() {
    }

    static synchronized EventFormat format(String system, String event) {
        if (snapshot == null) {
            snapshot = Tracefs.open(Prerequisites.snapshot());
        }
        return snapshot.format(system, event);
    }

    /**
     * A record of {@code system:event} with the given integer or (char array) string fields, the rest 0.
     *
     * @param fields name → Long/Integer or String
     */
    static EventRecord record(String system, String event, int cpu, long ts, Map<String, Object> fields) {
        EventFormat f = format(system, event);
        ByteBuffer b = ByteBuffer.allocate(f.fixedSize() + 64).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(0, (short) f.id());
        for (var e : fields.entrySet()) {
            Field field = f.field(e.getKey());
            if (field == null) {
                throw new IllegalArgumentException(f.fullName() + " has no field " + e.getKey());
            }
            if (e.getValue() instanceof String s) {
                byte[] bytes = s.getBytes(StandardCharsets.UTF_8);
                if (field.kind().isDynamic()) {
                    int off = f.fixedSize();
                    b.put(off, bytes);
                    b.putInt(field.offset(), (bytes.length + 1) << 16 | off);
                } else {
                    b.put(field.offset(), bytes, 0, Math.min(bytes.length, field.size() - 1));
                }
            } else {
                long v = ((Number) e.getValue()).longValue();
                switch (field.size()) {
                    case 1 -> b.put(field.offset(), (byte) v);
                    case 2 -> b.putShort(field.offset(), (short) v);
                    case 4 -> b.putInt(field.offset(), (int) v);
                    case 8 -> b.putLong(field.offset(), v);
                    default -> throw new IllegalArgumentException(field.name() + " size " + field.size());
                }
            }
        }
        return new EventRecord(f, LAYOUT, cpu, ts, b);
    }
}
