package org.tracewire.filter;

import java.math.BigInteger;
import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.wire.Ethernet;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireHeader;

/**
 * Compiles a {@link Filter} to a libpcap capture filter (the syntax of {@code pcap-filter(7)},
 * checked with libpcap's compiler) over tracewire version-2 frames in their Ethernet encapsulation
 * ({@code docs/wire-format.md} §1–3): Ethernet (EtherType {@code 0x88b5}), the 16-byte big-endian
 * header (version at frame offset 14, kind and flags at 15, cpu at 16), then the record payload as
 * the ring buffer holds it from frame offset {@value #PAYLOAD_OFFSET}: {@code common_type} at 30,
 * {@code common_flags} 32, {@code common_preempt_count} 33, {@code common_pid} 34, every own field at
 * 30 + its {@code format} offset, all in the kernel's byte order.
 *
 * <p>Shape: {@code ether proto 0x88b5 and ether[14] = 2 and (ether[15] & 0xf != 0 or (ether[15] &
 * 0x1f = K and ether[30:2] = ID and CONDITIONS))}: every context frame passes (a capture without
 * them could not be decoded); an event frame passes when its kind, byte order (K = kind EVENT with
 * the kernel's byte-order flag) and event id (in the kernel's byte order) match and the
 * conditions hold. The conditions: every numeric comparison ({@code == != < <= > >= &}) on the common fields, the cpu
 * and the fixed-size own fields (integers and pointers of 1, 2, 4 or 8 bytes): their offsets are
 * fixed per event id, so these conditions are exact. Values in the kernel's byte order are compared
 * as such (byte-swapped constants for {@code == != &}, bytes reassembled for ordered comparisons;
 * signed order by flipping the sign bit; 8-byte fields as two 32-bit halves).
 *
 * <p>It cannot express (and drops, so the filter widens, with a warning): string comparisons
 * ({@code == != ~} on strings, {@code COMM}) and array fields. {@code CPU} compared with a value
 * outside 0..65535 (the header's cpu is a u16) is a constant. A frame cut by truncation before a
 * tested field fails that test (libpcap rejects a load past the end); events carry fixed-size fields
 * in their first bytes, long before the 1,484 payload bytes an MTU-1500 frame holds.
 */
public final class BpfFilterCompiler {
    private static final int ETH = Ethernet.HEADER;
    /** tracewire's EtherType. */
    public static final int ETHERTYPE = Ethernet.ETHERTYPE;
    /** Frame offset of the header's version byte. */
    public static final int VERSION_OFFSET = ETH;
    /** Frame offset of the kind (bits 0-3) and flags (bits 4-7) byte. */
    public static final int KIND_FLAGS_OFFSET = ETH + 1;
    /** Frame offset of the cpu (u16, big-endian). */
    public static final int CPU_OFFSET = ETH + 2;
    /**
     * The condition that passes every context frame (kind ≠ EVENT): a capture filter never drops
     * the CAPTURE, FORMAT, SYMBOLS, PROCESS and LOST frames the events need to be decoded.
     */
    public static final String CONTEXT = "ether[" + (ETH + 1) + "] & 0xf != 0";
    /** Frame offset of the record payload ({@code common_type}). */
    public static final int PAYLOAD_OFFSET = ETH + WireHeader.SIZE;

    /**
     * A capture filter and what it could not express.
     *
     * @param filter   the libpcap expression
     * @param exact    true when no condition was dropped
     * @param warnings one line per dropped condition
     */
    public record Result(String filter, boolean exact, List<String> warnings) {
        public Result {
            warnings = List.copyOf(warnings);
        }
    }

    /** Where a number lives in the frame. */
    private record Slot(int offset, int size, boolean signed, boolean littleEndian) {
    }

    private BpfFilterCompiler() {
    }

    /**
     * @param filter    the filter
     * @param format    its event
     * @param byteOrder the traced kernel's byte order (the payload is in it)
     * @throws FilterSyntaxException when the filter does not fit the event ({@link FilterValidator})
     */
    public static Result compile(Filter filter, EventFormat format, ByteOrder byteOrder) {
        FilterValidator.check(filter, format);
        boolean le = byteOrder == ByteOrder.LITTLE_ENDIAN;
        Map<String, Integer> offsets = fixedValueOffsets(format);
        List<String> warnings = new ArrayList<>();
        Approx approx = new Approx(new Approx.Syntax(" and ", " or ", "not "), c -> {
            String why = null;
            FilterField f = FilterField.resolve(format, c.field());
            Slot slot = null;
            if (f.type() != FilterField.Type.NUMBER) {
                why = f.source() == FilterField.Source.COMM ? "COMM is not in the frame"
                        : "string comparisons are not expressible in a capture filter";
            } else if (f.source() == FilterField.Source.CPU) {
                // the frame's cpu is a u16: out-of-range values make the comparison a constant
                BigInteger v = ((Value.Num) c.value()).value();
                Approx.Expr k = Approx.constant(c.op(), v, BigInteger.valueOf(0xffff));
                if (k != null) {
                    return k;
                }
                return leaf(c.op(), c.op() == Op.BAND ? v.and(BigInteger.valueOf(0xffff)) : v,
                        new Slot(CPU_OFFSET, 2, false, false));
            } else {
                Integer off = offsets.get(f.name());
                if (off == null) {
                    why = f.name() + " is not a fixed-size number in the record";
                } else {
                    slot = new Slot(off, f.size(), f.signed(), le && f.size() > 1);
                }
            }
            if (slot == null) {
                warnings.add("capture filter: " + c.toText() + " dropped (widens): " + why);
                return null;
            }
            return leaf(c.op(), ((Value.Num) c.value()).value(), slot);
        });
        Approx.Expr upper = approx.of(filter, true);
        int kindFlags = FrameKind.EVENT.code() | (le ? WireHeader.FLAG_LITTLE_ENDIAN : 0);
        long id = le ? swap(format.id(), 2) : format.id();
        String event = "ether[" + KIND_FLAGS_OFFSET + "] & 0x1f = " + hex(kindFlags)
                + " and ether[" + PAYLOAD_OFFSET + ":2] = " + hex(id);
        StringBuilder sb = new StringBuilder("ether proto 0x" + Integer.toHexString(ETHERTYPE)
                + " and ether[" + VERSION_OFFSET + "] = " + WireHeader.VERSION + " and (" + CONTEXT + " or ");
        if (upper instanceof Approx.False) {
            // no event frame matches: only the context frames pass
            sb.setLength(sb.length() - " or ".length());
        } else if (upper instanceof Approx.Text t) {
            String cond = t.text();
            sb.append('(').append(event).append(" and ").append(t.compound() ? "(" + cond + ")" : cond).append(')');
        } else {
            sb.append('(').append(event).append(')');
        }
        sb.append(')');
        return new Result(sb.toString(), warnings.isEmpty(), warnings);
    }

    /**
     * Frame offsets (Ethernet encapsulation) of the event's fixed-size numbers: the common fields and
     * the own integers and pointers of 1, 2, 4 or 8 bytes, at {@value #PAYLOAD_OFFSET} + their
     * {@code format} offset. Keyed by field name.
     */
    public static Map<String, Integer> fixedValueOffsets(EventFormat format) {
        Map<String, Integer> out = new HashMap<>();
        List<Field> all = new ArrayList<>(format.commonFields());
        all.addAll(format.fields());
        for (Field f : all) {
            boolean number = (f.kind() == FieldKind.INTEGER || f.kind() == FieldKind.POINTER)
                    && (f.size() == 1 || f.size() == 2 || f.size() == 4 || f.size() == 8);
            if (number) {
                out.put(f.name(), PAYLOAD_OFFSET + f.offset());
            }
        }
        return out;
    }

    /** One comparison of a number at a slot ({@code & 0} is the constant false). */
    private static Approx.Expr leaf(Op op, BigInteger value, Slot s) {
        if (op == Op.BAND && value.signum() == 0) {
            return new Approx.False();
        }
        String t = leafText(op, value, s);
        return new Approx.Text(t, false);
    }

    private static String leafText(Op op, BigInteger value, Slot s) {
        BigInteger u = value.signum() < 0 ? value.add(BigInteger.ONE.shiftLeft(8 * s.size())) : value;
        if (s.size() <= 4) {
            long uv = u.longValue();
            if (op == Op.EQ || op == Op.NE || op == Op.BAND) {
                long raw = s.littleEndian() ? swap(uv, s.size()) : uv;
                String load = "ether[" + s.offset() + (s.size() == 1 ? "" : ":" + s.size()) + "]";
                return switch (op) {
                    case EQ -> load + " = " + hex(raw);
                    case NE -> load + " != " + hex(raw);
                    default -> load + " & " + hex(raw) + " != 0";
                };
            }
            String word = word(s.offset(), s.size(), s.littleEndian());
            long k = uv;
            if (s.signed()) {
                long bit = 1L << (8 * s.size() - 1);
                word = "(" + word + " ^ " + hex(bit) + ")";
                k = uv ^ bit;
            }
            return word + " " + rel(op) + " " + hex(k);
        }
        // 8 bytes: two 32-bit halves
        long hi = u.shiftRight(32).longValue() & 0xffffffffL;
        long lo = u.longValue() & 0xffffffffL;
        int hiOff = s.littleEndian() ? s.offset() + 4 : s.offset();
        int loOff = s.littleEndian() ? s.offset() : s.offset() + 4;
        if (op == Op.EQ || op == Op.NE || op == Op.BAND) {
            long hiRaw = s.littleEndian() ? swap(hi, 4) : hi;
            long loRaw = s.littleEndian() ? swap(lo, 4) : lo;
            String h = "ether[" + hiOff + ":4]";
            String l = "ether[" + loOff + ":4]";
            return switch (op) {
                case EQ -> "(" + h + " = " + hex(hiRaw) + " and " + l + " = " + hex(loRaw) + ")";
                case NE -> "(" + h + " != " + hex(hiRaw) + " or " + l + " != " + hex(loRaw) + ")";
                default -> {
                    List<String> parts = new ArrayList<>();
                    if (hiRaw != 0) {
                        parts.add(h + " & " + hex(hiRaw) + " != 0");
                    }
                    if (loRaw != 0) {
                        parts.add(l + " & " + hex(loRaw) + " != 0");
                    }
                    yield parts.size() == 1 ? parts.get(0)
                            : "(" + parts.get(0) + " or " + parts.get(1) + ")";
                }
            };
        }
        String h = word(hiOff, 4, s.littleEndian());
        String l = word(loOff, 4, s.littleEndian());
        long hk = hi;
        if (s.signed()) {
            h = "(" + h + " ^ 0x80000000)";
            hk = hi ^ 0x80000000L;
        }
        String strict = op == Op.LT || op == Op.LE ? "<" : ">";
        // x op v  <=>  hi strict hk  or (hi == hk and lo op lk)
        return "(" + h + " " + strict + " " + hex(hk) + " or (" + h + " = " + hex(hk) + " and " + l + " " + rel(op) + " "
                + hex(lo) + "))";
    }

    /** The unsigned value of {@code size} bytes at {@code off}, as a libpcap arithmetic expression. */
    private static String word(int off, int size, boolean littleEndian) {
        if (size == 1) {
            return "ether[" + off + "]";
        }
        if (!littleEndian) {
            return "ether[" + off + ":" + size + "]";
        }
        StringBuilder sb = new StringBuilder("(");
        for (int i = size - 1; i >= 0; i--) {
            if (i < size - 1) {
                sb.append(" | ");
            }
            sb.append(i == 0 ? "ether[" + off + "]" : "ether[" + (off + i) + "] << " + (8 * i));
        }
        return sb.append(')').toString();
    }

    private static String rel(Op op) {
        return switch (op) {
            case LT -> "<";
            case LE -> "<=";
            case GT -> ">";
            case GE -> ">=";
            default -> throw new IllegalArgumentException(op.toString());
        };
    }

    private static long swap(long v, int size) {
        long out = 0;
        for (int i = 0; i < size; i++) {
            out = (out << 8) | ((v >>> (8 * i)) & 0xff);
        }
        return out;
    }

    private static String hex(long v) {
        return "0x" + Long.toHexString(v);
    }
}
