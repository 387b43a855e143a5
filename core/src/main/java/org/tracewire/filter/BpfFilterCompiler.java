package org.tracewire.filter;

import java.math.BigInteger;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.FieldKind;
import org.tracewire.wire.Tlv;
import org.tracewire.wire.WireFrame;
import org.tracewire.wire.WireHeader;

/**
 * Compiles a {@link Filter} to a libpcap capture filter (the syntax of {@code pcap-filter(7)},
 * checked with libpcap's compiler) over tracewire frames as {@code docs/wire-format.md} (version 1)
 * and {@link org.tracewire.wire.FrameEncoder} lay them out: Ethernet (EtherType {@code 0x88b5}), a 48-byte big-endian header (event id at
 * frame offset 22, cpu at 20, common_flags 24, common_preempt_count 25, common_pid 26 (s32)),
 * then TLVs (4-byte head: type, length) starting with the event name {@code system:event}, then
 * one TLV per own field in format order, values in the kernel's byte order.
 *
 * <p>Always: {@code ether proto 0x88b5 and ether[22:2] = ID}. Then the comparisons it can
 * express: numbers ({@code == != < <= > >= &}) on the header fields and on own fields whose TLV
 * sits at a fixed frame offset: integers and pointers of 1, 2, 4 or 8 bytes that come before
 * the first variable-length field (a {@code char[N]} string, a flexible array, a
 * {@code __data_loc} field); the offset follows from the name's length, which is fixed per event.
 * Values in the kernel's byte order are compared as such (byte-swapped constants for
 * {@code == != &}, bytes reassembled for ordered comparisons; signed order by flipping the sign
 * bit; 8-byte fields as two 32-bit halves).
 *
 * <p>It cannot express (and drops, so the filter widens, with a warning): string comparisons
 * ({@code == != ~} on strings, {@code COMM}), fields after the first variable-length one. {@code CPU}
 * compared with a value outside 0..65535 (the wire's cpu is a u16) is a constant.
 * Conditions on TLVs
 * are guarded: a frame that is truncated, has another header length or another byte order passes
 * them, since its field bytes are not where this filter looks.
 */
public final class BpfFilterCompiler {
    private static final int ETH = WireFrame.ETHERNET_HEADER;
    /** tracewire's EtherType. */
    public static final int ETHERTYPE = WireFrame.ETHERTYPE;
    /** Frame offset of the header's flags byte (bit 0 little-endian, bit 1 truncated). */
    public static final int FLAGS_OFFSET = ETH + WireHeader.OFF_FLAGS;
    /** Frame offset of the header length (u16). */
    public static final int HEADER_LENGTH_OFFSET = ETH + WireHeader.OFF_HEADER_LENGTH;
    /** Frame offset of the cpu (u16). */
    public static final int CPU_OFFSET = ETH + WireHeader.OFF_CPU;
    /** Frame offset of the event id (u16). */
    public static final int EVENT_ID_OFFSET = ETH + WireHeader.OFF_EVENT_ID;
    /** Frame offset of common_flags (u8). */
    public static final int COMMON_FLAGS_OFFSET = ETH + WireHeader.OFF_COMMON_FLAGS;
    /** Frame offset of common_preempt_count (u8). */
    public static final int PREEMPT_COUNT_OFFSET = ETH + WireHeader.OFF_PREEMPT_COUNT;
    /** Frame offset of common_pid (s32, big-endian). */
    public static final int PID_OFFSET = ETH + WireHeader.OFF_PID;
    /** Frame offset of the magic "TW". */
    public static final int MAGIC_OFFSET = ETH + WireHeader.OFF_MAGIC;
    /** Header length of wire format version 1. */
    public static final int HEADER_LENGTH = WireHeader.SIZE;
    /** Frame offset of the first TLV (14 + 48). */
    public static final int TLV_START = ETH + HEADER_LENGTH;

    /**
     * A capture filter and what it could not express.
     *
     * @param filter   the libpcap expression
     * @param exact    true when no condition was dropped (frames that are truncated or of another
     *                 header layout still pass the field conditions)
     * @param warnings one line per dropped condition
     */
    public record Result(String filter, boolean exact, List<String> warnings) {
        public Result {
            warnings = List.copyOf(warnings);
        }
    }

    /** Where a number lives in the frame. */
    private record Slot(int offset, int size, boolean signed, boolean littleEndian, boolean tlv) {
    }

    private BpfFilterCompiler() {
    }

    /**
     * @param filter    the filter
     * @param format    its event
     * @param byteOrder the traced kernel's byte order (TLV values are in it)
     * @throws FilterSyntaxException when the filter does not fit the event ({@link FilterValidator})
     */
    public static Result compile(Filter filter, EventFormat format, ByteOrder byteOrder) {
        FilterValidator.check(filter, format);
        boolean le = byteOrder == ByteOrder.LITTLE_ENDIAN;
        Map<String, Integer> offsets = fixedValueOffsets(format);
        List<String> warnings = new ArrayList<>();
        boolean[] usesTlv = {false};
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
                        new Slot(CPU_OFFSET, 2, false, false, false));
            } else if (f.source() == FilterField.Source.COMMON) {
                slot = switch (f.name()) {
                    case "common_pid" -> new Slot(PID_OFFSET, 4, true, false, false);
                    case "common_flags" -> new Slot(COMMON_FLAGS_OFFSET, 1, false, false, false);
                    case "common_preempt_count" -> new Slot(PREEMPT_COUNT_OFFSET, 1, false, false, false);
                    default -> null;
                };
                why = slot == null ? f.name() + " is not in the frame" : null;
            } else {
                Integer off = offsets.get(f.name());
                if (off == null) {
                    why = f.name() + " comes after a variable-length field: its offset in the frame is not fixed";
                } else {
                    slot = new Slot(off, f.size(), f.signed(), le && f.size() > 1, true);
                }
            }
            if (slot == null) {
                warnings.add("capture filter: " + c.toText() + " dropped (widens): " + why);
                return null;
            }
            usesTlv[0] |= slot.tlv();
            return leaf(c.op(), ((Value.Num) c.value()).value(), slot);
        });
        Approx.Expr upper = approx.of(filter, true);
        StringBuilder sb = new StringBuilder("ether proto 0x" + Integer.toHexString(ETHERTYPE)
                + " and ether[" + EVENT_ID_OFFSET + ":2] = " + format.id());
        if (upper instanceof Approx.False) {
            // matches no tracewire frame (their magic is "TW"), yet libpcap cannot prove it false: it
            // refuses to compile an expression that "rejects all packets"
            sb.append(" and ether[").append(MAGIC_OFFSET).append(":2] != 0x").append(Integer.toHexString(WireHeader.MAGIC));
        } else if (upper instanceof Approx.Text t) {
            String cond = t.text();
            if (usesTlv[0]) {
                String guard = "ether[" + FLAGS_OFFSET + "] & " + (WireHeader.FLAG_LITTLE_ENDIAN | WireHeader.FLAG_TRUNCATED)
                        + " != " + (le ? WireHeader.FLAG_LITTLE_ENDIAN : 0) + " or ether[" + HEADER_LENGTH_OFFSET
                        + ":2] != " + HEADER_LENGTH;
                sb.append(" and (").append(guard).append(" or ").append(t.compound() ? "(" + cond + ")" : cond).append(')');
            } else {
                sb.append(" and ").append(t.compound() ? "(" + cond + ")" : cond);
            }
        }
        return new Result(sb.toString(), warnings.isEmpty(), warnings);
    }

    /**
     * Frame offsets of the values of the event's own fields whose TLV position is fixed: the
     * fixed-size fields (integers, pointers, fixed non-char arrays, opaque) before the first
     * variable-length one. Keyed by field name.
     */
    public static Map<String, Integer> fixedValueOffsets(EventFormat format) {
        Map<String, Integer> out = new HashMap<>();
        int at = TLV_START + Tlv.HEAD + format.fullName().getBytes(StandardCharsets.UTF_8).length;
        for (Field f : format.fields()) {
            boolean fixed = switch (f.kind()) {
                case INTEGER, POINTER, OPAQUE -> true;
                case ARRAY -> f.arrayLength() > 0;
                default -> false;
            };
            if (!fixed) {
                break;
            }
            out.put(f.name(), at + Tlv.HEAD);
            at += Tlv.HEAD + f.size();
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
