package org.tracewire.pcapng;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Consumer;

/**
 * A small, strict pcapng reader for tests: checks block lengths (leading = trailing, multiple of
 * 4), option padding and the end-of-options marker, and returns the blocks' fields.
 */
public final class PcapngReader {
    /** A block: type, total length, fixed body words (as read) and options (code → values in order). */
    public record Block(int type, int length, ByteBuffer body, Map<Integer, List<byte[]>> options) {
        byte[] option(int code) {
            List<byte[]> v = options.get(code);
            return v == null ? null : v.get(0);
        }

        String text(int code) {
            byte[] v = option(code);
            return v == null ? null : new String(v, StandardCharsets.UTF_8);
        }

        long u64(int code, ByteOrder order) {
            return ByteBuffer.wrap(option(code)).order(order).getLong();
        }

        /** A time stamp option: high word then low word. */
        long time(int code, ByteOrder order) {
            ByteBuffer b = ByteBuffer.wrap(option(code)).order(order);
            return ((long) b.getInt() << 32) | (b.getInt() & 0xffffffffL);
        }
    }

    final ByteOrder order;
    final List<Block> blocks = new ArrayList<>();

    public PcapngReader(byte[] file) {
        order = orderOf(file);
        parse(file, order, blocks::add);
    }

    /**
     * Visits a file's packets (its Enhanced Packet Blocks) in file order and hands every other block
     * to {@code others}, keeping none of them: for captures of millions of packets, which
     * {@link #PcapngReader(byte[])} and {@link #packets()} would hold in memory all at once (a test's
     * heap then bounds the capture it can check). Checks every block as the constructor does.
     *
     * @param file    the whole pcapng file
     * @param packets gets each packet
     * @param others  gets each block that is not an EPB (SHB, IDB, ISB)
     * @throws AssertionError on a malformed block, as the constructor
     */
    public static void forEach(byte[] file, Consumer<Packet> packets, Consumer<Block> others) {
        ByteOrder order = orderOf(file);
        parse(file, order, b -> {
            if (b.type() == PcapngWriter.EPB) {
                packets.accept(packet(b, order));
            } else {
                others.accept(b);
            }
        });
    }

    /** The section's byte order, from the SHB at the start of the file. */
    private static ByteOrder orderOf(byte[] file) {
        ByteBuffer b = ByteBuffer.wrap(file);
        if (b.getInt(0) != PcapngWriter.SHB) {
            throw new AssertionError("no SHB at 0");
        }
        int magic = b.order(ByteOrder.BIG_ENDIAN).getInt(8);
        ByteOrder order = magic == PcapngWriter.BYTE_ORDER_MAGIC ? ByteOrder.BIG_ENDIAN : ByteOrder.LITTLE_ENDIAN;
        if (b.order(order).getInt(8) != PcapngWriter.BYTE_ORDER_MAGIC) {
            throw new AssertionError("bad byte-order magic");
        }
        return order;
    }

    /** Checks the file's blocks one by one and hands each to {@code sink}, in file order. */
    private static void parse(byte[] file, ByteOrder order, Consumer<Block> sink) {
        ByteBuffer b = ByteBuffer.wrap(file).order(order);
        int pos = 0;
        while (pos < file.length) {
            int type = b.getInt(pos);
            int len = b.getInt(pos + 4);
            if (len % 4 != 0 || len < 12 || pos + len > file.length) {
                throw new AssertionError("block at " + pos + ": bad length " + len);
            }
            if (b.getInt(pos + len - 4) != len) {
                throw new AssertionError("block at " + pos + ": trailing length differs");
            }
            int fixed = switch (type) {
                case PcapngWriter.SHB -> 16;
                case PcapngWriter.IDB -> 8;
                case PcapngWriter.ISB -> 12;
                case PcapngWriter.EPB -> 20 + PcapngWriter.pad(b.getInt(pos + 8 + 12));
                default -> throw new AssertionError("unexpected block type " + type);
            };
            ByteBuffer body = b.slice(pos + 8, fixed).order(order);
            Map<Integer, List<byte[]>> options = new LinkedHashMap<>();
            int o = pos + 8 + fixed;
            int end = pos + len - 4;
            boolean sawEnd = o == end;
            while (o < end) {
                int code = b.getShort(o) & 0xffff;
                int olen = b.getShort(o + 2) & 0xffff;
                if (code == PcapngWriter.OPT_END) {
                    if (olen != 0 || o + 4 != end) {
                        throw new AssertionError("block at " + pos + ": opt_endofopt not last");
                    }
                    sawEnd = true;
                    break;
                }
                if (o + 4 + PcapngWriter.pad(olen) > end) {
                    throw new AssertionError("block at " + pos + ": option " + code + " runs past the block");
                }
                byte[] v = new byte[olen];
                b.get(o + 4, v);
                for (int k = olen; k < PcapngWriter.pad(olen); k++) {
                    if (b.get(o + 4 + k) != 0) {
                        throw new AssertionError("non-zero option padding");
                    }
                }
                options.computeIfAbsent(code, c -> new ArrayList<>()).add(v);
                o += 4 + PcapngWriter.pad(olen);
            }
            if (!sawEnd) {
                throw new AssertionError("block at " + pos + ": options without opt_endofopt");
            }
            sink.accept(new Block(type, len, body, options));
            pos += len;
        }
    }

    public List<Block> ofType(int type) {
        return blocks.stream().filter(x -> x.type() == type).toList();
    }

    /** The packets of the Enhanced Packet Blocks, in file order: (time ns, drop count, frame bytes). */
    public List<Packet> packets() {
        List<Packet> out = new ArrayList<>();
        for (Block b : ofType(PcapngWriter.EPB)) {
            out.add(packet(b, order));
        }
        return out;
    }

    /** An EPB's packet: time stamp, {@code epb_dropcount} (option 4, 0 without it) and bytes. */
    private static Packet packet(Block b, ByteOrder order) {
        ByteBuffer body = b.body();
        long time = ((long) body.getInt(4) << 32) | (body.getInt(8) & 0xffffffffL);
        int cap = body.getInt(12);
        byte[] frame = new byte[cap];
        body.get(20, frame);
        byte[] drops = b.option(4);
        long drop = drops == null ? 0 : ByteBuffer.wrap(drops).order(order).getLong();
        return new Packet(time, drop, frame);
    }

    /** One packet: time stamp (ns), epb_dropcount, bytes. */
    public record Packet(long timeNs, long dropCount, byte[] frame) {
    }
}
