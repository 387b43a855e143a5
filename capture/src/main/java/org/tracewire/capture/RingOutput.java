package org.tracewire.capture;

import java.io.IOException;
import java.math.BigDecimal;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.channels.WritableByteChannel;
import java.nio.file.Path;
import java.time.Clock;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Locale;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.posix.InvokingUser;

/**
 * A capture into a ring of pcapng files, as dumpcap's {@code -b}: the frames go into one file until
 * it reaches a size ({@code filesize}) or spans a time ({@code duration}), then into the next; beyond
 * {@code files} files the oldest is removed. Files are named as dumpcap names them, from the
 * {@code -w} name: {@code NAME_00001_YYYYMMDDHHMMSS.EXT} (number from 1, wrapping to 0 after 99999;
 * local time when the file was opened). Each file is a complete pcapng: its own section and
 * interface blocks, its own statistics block at the end (the events lost before its frames), and,
 * sent by the capture's {@link FrameSink} when it switches, the context its frames need
 * ({@code docs/wire-format.md} §6), so any one file opens alone.
 *
 * <p>A file is switched only before an event frame ({@link #due}), never inside the context that
 * precedes one, and only once it holds an event. Files are written through the page cache by the
 * emitting thread (no writer thread and its 16 MiB of buffers per file), created and removed as
 * the invoking user ({@link FrameOutputs.FileOpener#INVOKING_USER}, {@link InvokingUser#deleteOutput}).
 */
public final class RingOutput implements FrameOutput {
    /** dumpcap's ringbuffer.c: file numbers wrap at this (a power of ten), so they keep five digits. */
    static final int MAX_NUMBER = 100_000;

    /**
     * When a ring switches files and how many it keeps.
     *
     * @param fileBytes  switch once a file holds this many bytes (0: no size limit)
     * @param files      keep at most this many files, the oldest removed (0: keep every file)
     * @param durationNs switch once a file's events span this many ns (0: no time limit)
     */
    public record Spec(long fileBytes, int files, long durationNs) {
        public Spec {
            if (fileBytes < 0 || files < 0 || durationNs < 0) {
                throw new IllegalArgumentException("ring: sizes, counts and durations must not be negative");
            }
            if (fileBytes == 0 && durationNs == 0) {
                throw new IllegalArgumentException("ring: give a file size (--ring MB,FILES or -b filesize:KB) or "
                        + "-b duration:SECONDS: without one the first file never ends");
            }
            if (files >= MAX_NUMBER) {
                throw new IllegalArgumentException("ring: at most " + (MAX_NUMBER - 1) + " files");
            }
        }

        /**
         * The ring a command line asks for: tracewire's {@code --ring FILESIZE_MB,FILES} and/or
         * dumpcap's {@code -b} words {@code filesize:KB}, {@code files:N}, {@code duration:SECONDS}
         * (KB = 1000 bytes and MB = 1000000 bytes, as dumpcap counts; sizes and durations may have a
         * fraction). A later word overrides an earlier one.
         *
         * @param ring  the {@code --ring} value, or null
         * @param words the {@code -b} values, in order (may be empty)
         * @return the spec, or null when neither was given
         * @throws IllegalArgumentException for a malformed value, saying which and why
         */
        public static Spec parse(String ring, List<String> words) {
            if (ring == null && words.isEmpty()) {
                return null;
            }
            long bytes = 0;
            int files = 0;
            long duration = 0;
            if (ring != null) {
                String[] p = ring.split(",", -1);
                if (p.length != 2) {
                    throw new IllegalArgumentException("--ring " + ring + ": expected FILESIZE_MB,FILES, e.g. 100,10");
                }
                bytes = scaled("--ring " + ring + ": file size", p[0], 1_000_000L);
                files = count("--ring " + ring + ": files", p[1]);
                if (bytes == 0) {
                    throw new IllegalArgumentException("--ring " + ring + ": the file size must be above 0 MB");
                }
            }
            for (String w : words) {
                int colon = w.indexOf(':');
                String key = colon < 0 ? w : w.substring(0, colon);
                String value = colon < 0 ? "" : w.substring(colon + 1);
                String what = "-b " + w;
                switch (key) {
                    case "filesize" -> bytes = scaled(what, value, 1000L);
                    case "files" -> files = count(what, value);
                    case "duration" -> duration = scaled(what, value, 1_000_000_000L);
                    default -> throw new IllegalArgumentException(what + ": expected filesize:KB, files:N or "
                            + "duration:SECONDS (dumpcap's other -b words are not supported)"
                            + (key.matches("\\d+") ? "; trace-cmd's -b (buffer KiB per CPU) is --buffer-kb here" : ""));
                }
            }
            return new Spec(bytes, files, duration);
        }

        private static long scaled(String what, String value, long unit) {
            try {
                BigDecimal v = new BigDecimal(value.strip()).multiply(BigDecimal.valueOf(unit));
                if (v.signum() < 0) {
                    throw new IllegalArgumentException(what + ": must not be negative");
                }
                return v.longValueExact();
            } catch (NumberFormatException | ArithmeticException e) {
                throw new IllegalArgumentException(what + ": '" + value + "' is not a number (or too large)");
            }
        }

        private static int count(String what, String value) {
            try {
                int n = Integer.parseInt(value.strip());
                if (n < 0) {
                    throw new IllegalArgumentException(what + ": must not be negative");
                }
                return n;
            } catch (NumberFormatException e) {
                throw new IllegalArgumentException(what + ": '" + value + "' is not a whole number");
            }
        }

        /** E.g. "files of 1000000 bytes, keeping 5" or "files of 10 s, keeping all". */
        public String describe() {
            List<String> l = new ArrayList<>();
            if (fileBytes > 0) {
                l.add(fileBytes + " bytes");
            }
            if (durationNs > 0) {
                l.add(BigDecimal.valueOf(durationNs, 9).stripTrailingZeros().toPlainString() + " s");
            }
            return "files of " + String.join(" or ", l) + ", keeping " + (files == 0 ? "all" : files);
        }
    }

    /** Removes a file of the ring. */
    @FunctionalInterface
    public interface Remover {
        /** As the invoking user ({@link InvokingUser#deleteOutput}). */
        Remover INVOKING_USER = f -> InvokingUser.deleteOutput(f, "pcapng");

        /** @throws IOException when the file cannot be removed */
        void remove(Path file) throws IOException;
    }

    /** A file of the ring and the frames and events it holds (final once it is closed). */
    private static final class File {
        final Path path;
        long frames;
        long events;

        File(Path path) {
            this.path = path;
        }
    }

    private static final DateTimeFormatter STAMP = DateTimeFormatter.ofPattern("yyyyMMddHHmmss", Locale.ROOT);

    private final Spec spec;
    private final Path base;
    private final SectionInfo section;
    private final InterfaceInfo iface;
    private final FrameOutputs.FileOpener opener;
    private final Remover remover;
    private final Clock clock;
    /** Files kept, oldest first; the last is the one written. */
    private final Deque<File> kept = new ArrayDeque<>();
    private int opened;
    private int removed;
    private long removedFrames;
    private long removedEvents;
    private PcapngOutput current;
    private Counting channel;
    /** Events written into the current file ({@link #due} counts them) and the first one's time. */
    private long eventsInFile;
    private long fileStartNs;

    /**
     * Opens the first file.
     *
     * @param spec    when to switch, how many to keep
     * @param base    the {@code -w} name the files are named after
     * @param section the section options of every file
     * @param iface   the interface of every file
     * @param opener  creates a file (as the invoking user)
     * @param remover removes the oldest file (as the invoking user)
     * @param clock   the local time in the names
     * @throws IOException when the first file cannot be created
     */
    public RingOutput(Spec spec, Path base, SectionInfo section, InterfaceInfo iface, FrameOutputs.FileOpener opener,
                      Remover remover, Clock clock) throws IOException {
        this.spec = spec;
        this.base = base;
        this.section = section;
        this.iface = iface;
        this.opener = opener;
        this.remover = remover;
        this.clock = clock;
        open();
    }

    /**
     * The name of a ring's file, as dumpcap's ringbuffer.c makes it: the base's name without its
     * last extension, {@code _}, the number in five digits, {@code _}, the local time
     * {@code yyyyMMddHHmmss}, the extension ({@code out.pcapng} → {@code out_00001_20261127233501.pcapng};
     * no extension, none added).
     *
     * @param base   the {@code -w} path
     * @param number the file's number (taken modulo {@link #MAX_NUMBER})
     * @param time   the local time the file is opened
     */
    public static Path fileName(Path base, int number, LocalDateTime time) {
        return base.resolveSibling(named(base, String.format(Locale.ROOT, "_%05d_%s", Math.floorMod(number, MAX_NUMBER),
                STAMP.format(time))));
    }

    /** The base's file name with {@code infix} before its last extension. */
    private static String named(Path base, String infix) {
        String name = base.getFileName().toString();
        int dot = name.lastIndexOf('.');
        return dot > 0 ? name.substring(0, dot) + infix + name.substring(dot) : name + infix;
    }

    private void open() throws IOException {
        Path p = fileName(base, opened + 1, LocalDateTime.now(clock));
        Counting ch = new Counting(opener.open(p));
        PcapngOutput out = new PcapngOutput(p.toString(), ch, false, section, iface); // closes ch when it fails
        channel = ch;
        current = out;
        opened++;
        kept.addLast(new File(p));
        eventsInFile = 0;
    }

    /**
     * Called once before each event frame, with its time: true when the current file is done (it
     * holds an event and has reached the size, or its events span the duration), and the caller
     * switches ({@link #next}) before anything of this event is written; else the event is counted
     * into the current file.
     *
     * @param timeNs the event's time, ns
     */
    public boolean due(long timeNs) {
        if (eventsInFile > 0 && ((spec.fileBytes() > 0 && size() >= spec.fileBytes())
                || (spec.durationNs() > 0 && timeNs - fileStartNs >= spec.durationNs()))) {
            return true;
        }
        if (eventsInFile++ == 0) {
            fileStartNs = timeNs;
        }
        return false;
    }

    /**
     * Bytes of the current file: written to it and buffered for it.
     */
    long size() {
        return channel.count + current.buffered();
    }

    /**
     * Closes the current file (its statistics block written), opens the next and removes the
     * oldest beyond {@link Spec#files()}. The event that made it {@link #due} counts into the new file.
     *
     * @param timeNs the event's time
     * @throws IOException when closing, creating or removing fails (the ring then fails as an output)
     */
    public void next(long timeNs) throws IOException {
        kept.getLast().frames = current.frames();
        kept.getLast().events = eventsInFile;
        current.close();
        open();
        eventsInFile = 1;
        fileStartNs = timeNs;
        while (spec.files() > 0 && kept.size() > spec.files()) {
            File old = kept.removeFirst();
            remover.remove(old.path);
            removed++;
            removedFrames += old.frames;
            removedEvents += old.events;
        }
    }

    /** The file written now (frames of events may be encoded straight into it). */
    PcapngOutput current() {
        return current;
    }

    /** The files kept, oldest first (the last is the one written). */
    public List<Path> files() {
        return kept.stream().map(f -> f.path).toList();
    }

    @Override
    public void write(ByteBuffer frame, long timeNs, long lostBefore) throws IOException {
        current.write(frame, timeNs, lostBefore);
    }

    @Override
    public void dropsAfterLast(int cpu, long drops) {
        current.dropsAfterLast(cpu, drops);
    }

    @Override
    public void flush() throws IOException {
        current.flush();
    }

    @Override
    public void idle() throws IOException {
        current.idle(); // the current file, flushed as a single file is
    }

    @Override
    public String describe() {
        return "ring " + base.resolveSibling(named(base, "_*")) + " (" + spec.describe() + ")";
    }

    /** Frames in every file written, removed ones included. */
    @Override
    public long frames() {
        long n = removedFrames + current.frames();
        for (File f : kept) {
            if (f != kept.getLast()) {
                n += f.frames;
            }
        }
        return n;
    }

    /**
     * Each kept file with its frames, and what was removed: "ring out_*.pcapng (…): 5 files written,
     * 3 kept (2 older removed: 9000 frames, 8800 events), out_00003_… 4500 frames, …".
     */
    @Override
    public String held() {
        StringBuilder sb = new StringBuilder(describe()).append(": ").append(opened).append(" files written, ")
                .append(kept.size()).append(" kept");
        if (removed > 0) {
            sb.append(" (").append(removed).append(" older removed: ").append(removedFrames).append(" frames, ")
                    .append(removedEvents).append(" events)");
        }
        for (File f : kept) {
            long n = f == kept.getLast() ? current.frames() : f.frames;
            sb.append(", ").append(f.path).append(' ').append(n).append(" frames");
        }
        return sb.toString();
    }

    @Override
    public String abandon(IOException e) {
        return current.abandon(e);
    }

    @Override
    public void close() throws IOException {
        kept.getLast().frames = current.frames();
        kept.getLast().events = eventsInFile;
        current.close();
    }

    /** Counts the bytes handed to a file. */
    private static final class Counting implements WritableByteChannel {
        private final FileChannel target;
        long count;

        Counting(FileChannel target) {
            this.target = target;
        }

        @Override
        public int write(ByteBuffer src) throws IOException {
            int n = target.write(src);
            count += n;
            return n;
        }

        @Override
        public boolean isOpen() {
            return target.isOpen();
        }

        @Override
        public void close() throws IOException {
            target.close();
        }
    }
}
