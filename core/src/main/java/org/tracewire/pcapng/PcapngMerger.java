package org.tracewire.pcapng;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Objects;
import java.util.PriorityQueue;

/**
 * Merges pcapng files into one, in packet-time order, keeping every input interface distinct: each
 * gets its own Interface Description Block in the output, with the options it had (name,
 * description — for tracewire "ftrace events of HOST" —, {@code if_os}, {@code if_hardware},
 * comment) and, where it had none, its file's section options ({@code shb_os},
 * {@code shb_hardware}, the section comment), so every packet still says which host it came
 * from. {@code mergecap} would fold identical interfaces of different files into one and keep a
 * single section's options.
 *
 * <p>Order: a k-way merge on the packets' time stamps (ns); equal times keep the order of the
 * inputs, then of the file. Each packet keeps its {@code epb_dropcount}; drops an input's
 * Interface Statistics Block counts beyond its packets' drop counts (events lost after the last
 * packet) are added to the output interface's {@code isb_ifdrop}. Every input must hold one
 * section; errors name the file. An input cut short or malformed after its section header gives
 * its packets up to that block ({@link Result#damaged()} says where).
 */
public final class PcapngMerger {
    /**
     * What a merge did.
     *
     * @param packets    packets written
     * @param interfaces interfaces in the output (the sum of the inputs')
     * @param firstNs    time of the first packet (ns since the epoch), 0 without packets
     * @param lastNs     time of the last packet, 0 without packets
     * @param damaged    for each input that is cut short or malformed after its section header,
     *                   where ("FILE: pcapng offset N (block K): ..."): its packets before that
     *                   block were merged; empty when every input was read to its end
     */
    public record Result(long packets, int interfaces, long firstNs, long lastNs, List<String> damaged) {
        public Result {
            damaged = List.copyOf(damaged);
        }
    }

    private PcapngMerger() {
    }

    private static final class Source {
        final int index;
        final Path file;
        final PcapngPacketReader reader;
        final List<Integer> outIds = new ArrayList<>();
        final List<Long> epbDrops = new ArrayList<>();
        PcapngPacketReader.Packet head;
        long seq;
        String damaged;

        Source(int index, Path file) throws IOException {
            this.index = index;
            this.file = file;
            this.reader = new PcapngPacketReader(file);
        }

        void advance() throws IOException {
            try {
                head = reader.next();
            } catch (PcapngFormatException e) {
                if (reader.sections() == 0) {
                    throw new IOException(file + ": " + e.getMessage(), e);
                }
                head = null; // a file cut short (a killed capture) or damaged: its packets so far count
                damaged = file + ": " + e.getMessage();
            } catch (IOException e) {
                throw new IOException(file + ": " + e.getMessage(), e);
            }
            if (head == null && reader.truncatedAt() >= 0) {
                damaged = file + ": pcapng offset " + reader.truncatedAt() + ": the file ends inside a block";
            }
            if (reader.sections() > 1) {
                throw new IOException(file + ": more than one pcapng section (not supported by merge)");
            }
            seq++;
        }
    }

    /**
     * Merges {@code inputs} into {@code output} (created or replaced).
     *
     * @param inputs  pcapng files, at least one
     * @param output  the merged file
     * @param section the output's section options (e.g. {@link SectionInfo#host()} with a comment)
     * @return what was written
     * @throws IOException when an input is not a readable pcapng (the message names it) or writing fails
     */
    public static Result merge(List<Path> inputs, Path output, SectionInfo section) throws IOException {
        if (inputs.isEmpty()) {
            throw new IllegalArgumentException("no input files");
        }
        List<Source> sources = new ArrayList<>();
        try (PcapngWriter w = PcapngWriter.create(output, section)) {
            for (Path in : inputs) {
                Source s = new Source(sources.size(), in);
                sources.add(s);
                s.advance();
                declare(w, s);
            }
            PriorityQueue<Source> queue = new PriorityQueue<>((a, b) -> {
                int c = Long.compareUnsigned(a.head.timeNs(), b.head.timeNs());
                return c != 0 ? c : Integer.compare(a.index, b.index);
            });
            for (Source s : sources) {
                if (s.head != null) {
                    queue.add(s);
                }
            }
            long packets = 0;
            long first = 0;
            long last = 0;
            while (!queue.isEmpty()) {
                Source s = queue.poll();
                PcapngPacketReader.Packet p = s.head;
                declare(w, s);
                int out = s.outIds.get(p.interfaceId());
                w.writePacket(out, p.timeNs(), ByteBuffer.wrap(p.data()), p.data().length, p.dropCount());
                s.epbDrops.set(p.interfaceId(), s.epbDrops.get(p.interfaceId()) + p.dropCount());
                if (packets == 0) {
                    first = p.timeNs();
                }
                last = p.timeNs();
                packets++;
                s.advance();
                if (s.head != null) {
                    queue.add(s);
                }
            }
            int interfaces = 0;
            for (Source s : sources) {
                declare(w, s); // interfaces declared after the last packet
                for (int i = 0; i < s.outIds.size(); i++) {
                    long stats = s.reader.statisticsDrops(i);
                    if (stats > s.epbDrops.get(i)) {
                        w.addDrops(s.outIds.get(i), stats - s.epbDrops.get(i));
                    }
                }
                interfaces += s.outIds.size();
            }
            return new Result(packets, interfaces, first, last,
                    sources.stream().map(s -> s.damaged).filter(Objects::nonNull).toList());
        } finally {
            for (Source s : sources) {
                s.reader.close();
            }
        }
    }

    /** Adds the output interfaces for the input interfaces the source declared since the last call. */
    private static void declare(PcapngWriter w, Source s) throws IOException {
        List<InterfaceInfo> have = s.reader.interfaces();
        SectionInfo sec = s.reader.section();
        for (int i = s.outIds.size(); i < have.size(); i++) {
            InterfaceInfo in = have.get(i);
            String os = in.os().isEmpty() && sec != null ? sec.os() : in.os();
            String hw = in.hardware().isEmpty() && sec != null ? sec.hardware() : in.hardware();
            String comment = in.comment();
            if (sec != null && !sec.comment().isEmpty() && !comment.contains(sec.comment())) {
                comment = comment.isEmpty() ? sec.comment() : sec.comment() + "; " + comment;
            }
            String desc = in.description().isEmpty() ? s.file.getFileName().toString() : in.description();
            s.outIds.add(w.addInterface(new InterfaceInfo(in.linkType(), in.snapLength(), in.name(), desc, os, hw, comment)));
            s.epbDrops.add(0L);
        }
    }
}
