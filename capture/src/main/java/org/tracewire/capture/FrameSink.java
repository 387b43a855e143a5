package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicLong;
import org.tracewire.format.EventFormat;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.ContextPlanner;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.WireHeader;

/**
 * Where a capture's frames ({@code docs/wire-format.md}, version 2) go: every {@link FrameOutput},
 * in order, with the context that makes them self-describing. The capture engine's emitter thread
 * hands each event's record payload here in time order ({@link #event}), and calls {@link #finish}
 * at the end; this class encodes the event frame ({@link FrameEncoder#event}: the 16-byte header
 * and a copy of the payload), straight into a lone pcapng output's buffer when it can.
 *
 * <p>Here, on that one thread: the context messages each event needs are sent before it
 * ({@link ContextPlanner}: CAPTURE first, then LOST, FORMAT, SYMBOLS, PROCESS as due), every frame
 * gets its per-cpu-value sequence number from the one {@link FrameEncoder} (§2: numbered in the
 * order frames leave, context frames included, so a gap means a frame lost after emission), and
 * live interface outputs get the whole context again every 2 s. A ring of files ({@link RingOutput})
 * switches to its next file before an event, and a fresh tracker then makes that file
 * self-describing ({@link #nextFile}). Without a {@link CaptureContext} no context frames are sent
 * (bare event frames, for tests).
 */
public final class FrameSink implements AutoCloseable {
    /**
     * Events between two checks of the clock for a due repeat, and between two publications of the
     * counts ({@link #frames()} and the others lag the emitter by fewer events, and are exact after
     * {@link #flush()}, {@link #idle()} and {@link #finish()}).
     */
    static final int REPEAT_CHECK_EVENTS = 4096;

    private final List<FrameOutput> outputs;
    /** The outputs still written (an output that failed is dropped from here, {@link #drop}). */
    private FrameOutput[] outs;
    /** {@link #outs} as a list, for {@link FrameOutput#writeEach}. */
    private List<FrameOutput> active;
    /** Outputs that failed, in order (any thread reads). */
    private final List<OutputFailure> failures = new CopyOnWriteArrayList<>();

    private final boolean anyRepeats;
    private final CaptureContext context;
    /** Decides the context; a ring's next file gets a fresh one ({@link #nextFile}). */
    private ContextPlanner tracker;
    /** The task names {@link #tracker} was given: the host's, or {@link KnownTasks} in a ring's later files. */
    private ContextPlanner.Tasks trackerTasks;
    /** {@link ContextPlanner#dropped()} of the trackers of a ring's earlier files. */
    private long droppedBefore;
    /** The ring of files among the outputs, or null (also once it failed). */
    private RingOutput ring;
    private final boolean littleEndian;
    /** Numbers every frame, event and context, per cpu value in the order they leave (§2). */
    private final FrameEncoder encoder = new FrameEncoder();
    /** Frames of events and of context fragments are built here, with the headroom in front. */
    private final ByteBuffer scratch = ByteBuffer.allocateDirect(FrameOutput.HEADROOM + FrameEncoder.MAX_FRAME);
    /** The one output when it is a pcapng file or FIFO that takes frames encoded in place, else null. */
    private PcapngOutput inPlace;
    /** The output {@link #inPlace} belongs to: itself, or the ring whose current file it is. */
    private FrameOutput inPlaceOwner;
    // written by the emitting thread only; published with release stores every REPEAT_CHECK_EVENTS events and
    // at flush(), idle() and finish() (not per event), read anywhere
    private long frameCount;
    private long byteCount;
    private long eventCount;
    private long contextCount;
    private final AtomicLong frames = new AtomicLong();
    private final AtomicLong bytes = new AtomicLong();
    private final AtomicLong events = new AtomicLong();
    private final AtomicLong contextFrames = new AtomicLong();
    private long lastTime;
    private int sinceCheck;
    private boolean begun;

    /**
     * @param outputs where frames go, in order
     * @param context what the context messages say, or null to send none
     */
    public FrameSink(List<FrameOutput> outputs, CaptureContext context) {
        this.outputs = List.copyOf(outputs);
        this.outs = this.outputs.toArray(new FrameOutput[0]);
        this.active = this.outputs;
        for (FrameOutput o : outs) {
            if (o instanceof PcapngOutput p) {
                p.countEventsWith(() -> eventCount); // read on this sink's emitting thread
            }
        }
        this.anyRepeats = this.outputs.stream().anyMatch(FrameOutput::repeatsContext);
        this.ring = this.outputs.stream().filter(o -> o instanceof RingOutput).map(o -> (RingOutput) o).findFirst()
                .orElse(null);
        PcapngOutput only = outs.length != 1 ? null : outs[0] instanceof PcapngOutput p ? p
                : outs[0] == ring ? ring.current() : null;
        this.inPlace = only != null && only.encodesInPlace(encoder) ? only : null;
        this.inPlaceOwner = inPlace == null ? null : outs[0];
        this.context = context;
        this.trackerTasks = context == null ? null : context.tasks();
        this.tracker = context == null ? null : context.planner(this::sendContext);
        this.littleEndian = context == null || context.layout().byteOrder() == ByteOrder.LITTLE_ENDIAN;
    }

    /**
     * True when a reader takes the frames as they come: an output that is a FIFO, pipe or device
     * ({@link PcapngOutput#live()}) or a network interface ({@link FrameOutput#repeatsContext()}).
     */
    public boolean live() {
        for (FrameOutput o : outs) {
            if (o.repeatsContext() || (o instanceof PcapngOutput p && p.live())) {
                return true;
            }
        }
        return false;
    }

    /** The context the frames carry, or null. */
    public CaptureContext context() {
        return context;
    }

    /**
     * Sends the CAPTURE message (§4.1): first, before any other frame. Called before the first event
     * (with its time, so a file stays in time order; and only once tracing runs, so a capture tool
     * started during {@code --delay} sees it) or by {@link #finish}; idempotent.
     *
     * @param timeNs the frame's time, ns since the epoch
     */
    public void begin(long timeNs) throws IOException {
        if (begun) {
            return;
        }
        begun = true;
        lastTime = timeNs;
        if (tracker != null) {
            tracker.begin(timeNs);
        }
    }

    /**
     * A record read only to follow task names ({@link TaskNaming}): the PROCESS context it implies
     * goes out (before the events it names), the record itself is not framed.
     *
     * @param page   holds the payload; not changed
     * @param offset the payload's index in {@code page}
     * @param length the payload's length, bytes
     * @param format the event's format
     * @param timeNs its time, as {@link #event}'s
     * @throws IOException when an output fails
     */
    public void naming(ByteBuffer page, int offset, int length, EventFormat format, long timeNs) throws IOException {
        if (tracker == null) {
            return;
        }
        if (!begun) {
            begin(timeNs);
        }
        tracker.namingEvent(page, offset, length, format, timeNs);
    }

    /**
     * Encodes one event frame ({@code docs/wire-format.md} §3: the 16-byte header and a copy of the
     * record payload) and writes it to every output, after the context it needs. A capture whose
     * only output is a pcapng file or FIFO has the frame encoded straight into the file's buffer
     * ({@link PcapngOutput#writeEvent}); otherwise it is encoded once into a scratch buffer with
     * {@link FrameOutput#HEADROOM} in front and handed to each output. The payload is read at its
     * index, with absolute gets: no view of it needs its position and limit set.
     *
     * @param page     holds the record payload, in the kernel's byte order (the buffer's order, which
     *                 the context is read in); e.g. the record's page; not changed
     * @param offset   the payload's index in {@code page} ({@code common_type})
     * @param length   the payload's length, bytes (to the record's end)
     * @param format   the event's format
     * @param cpu      its CPU, 0..65534
     * @param timeNs   its time (the frame header's): ns since the epoch, or the raw trace clock
     * @param rawClock true when {@code timeNs} is the raw trace clock (flagged in the header)
     * @param lost     events its CPU lost since its previous event (a LOST message goes first), else 0
     * @throws IOException               when an output fails
     * @throws IndexOutOfBoundsException when the payload is not inside {@code page}'s limit
     */
    public void event(ByteBuffer page, int offset, int length, EventFormat format, int cpu, long timeNs,
                      boolean rawClock, long lost) throws IOException {
        if (!begun) {
            begin(timeNs);
        }
        RingOutput r = ring;
        if (r != null && r.due(timeNs)) {
            nextFile(r, timeNs);
        }
        lastTime = timeNs;
        if (tracker != null) {
            if (lost > 0) {
                tracker.lost(cpu, lost, timeNs);
            }
            tracker.beforeEvent(page, offset, length, format, cpu, timeNs);
        }
        int n;
        PcapngOutput p = inPlace;
        if (p != null) {
            try {
                n = p.writeEvent(encoder, page.order(), page, offset, length, cpu, timeNs, rawClock);
            } catch (IOException e) {
                drop(inPlaceOwner, e);
                n = 0;
            }
        } else {
            n = toOutputs(page, offset, length, cpu, timeNs, rawClock);
        }
        frameCount++;
        eventCount++;
        byteCount += n;
        if (++sinceCheck >= REPEAT_CHECK_EVENTS) {
            everyFewEvents();
        }
    }

    /**
     * A ring's switch to its next file, before an event: the file opened, and a fresh
     * {@link ContextPlanner} (naming tasks as the capture last named them, {@link KnownTasks})
     * sends CAPTURE now and then, before each event, the context the new file's frames need, so
     * the file decodes alone. The other outputs get those messages too (as a repeat). When the
     * ring fails it is dropped as any output that fails.
     */
    private void nextFile(RingOutput r, long timeNs) throws IOException {
        boolean wasInPlace = inPlace != null && inPlaceOwner == r;
        try {
            r.next(timeNs);
        } catch (IOException e) {
            drop(r, e);
            return;
        }
        if (wasInPlace) {
            inPlace = r.current();
        }
        if (tracker != null) {
            droppedBefore += tracker.dropped();
            trackerTasks = KnownTasks.after(trackerTasks, tracker);
            tracker = context.withTasks(trackerTasks).planner(this::sendContext);
            tracker.begin(timeNs);
        }
    }

    /** Every {@link #REPEAT_CHECK_EVENTS} events: the counts published, the context repeated when due. */
    private void everyFewEvents() throws IOException {
        sinceCheck = 0;
        publish();
        if (anyRepeats) {
            repeatIfDue();
        }
    }

    /** Makes the counts of the emitting thread visible to other threads (release stores). */
    private void publish() {
        frames.lazySet(frameCount);
        events.lazySet(eventCount);
        bytes.lazySet(byteCount);
    }

    /** {@link #event} without an in-place output: encoded once into the scratch buffer, written to each output. */
    private int toOutputs(ByteBuffer page, int offset, int length, int cpu, long timeNs, boolean rawClock)
            throws IOException {
        ByteBuffer s = scratch;
        s.clear();
        int n = encoder.event(page.order(), page, offset, length, cpu, timeNs, rawClock, s, FrameOutput.HEADROOM);
        for (FrameOutput out : outs) {
            s.limit(FrameOutput.HEADROOM + n).position(FrameOutput.HEADROOM);
            try {
                out.write(s, timeNs, 0);
            } catch (IOException e) {
                drop(out, e);
            }
        }
        return n;
    }

    /**
     * Drops an output that failed: it gets no more frames, is closed without a fuss at the end
     * ({@link FrameOutput#abandon}), and the failure is kept for the summary. The capture goes on:
     * the kernel's buffers are still drained and every loss counted.
     */
    private void drop(FrameOutput out, IOException e) {
        List<FrameOutput> left = new ArrayList<>(active);
        if (!left.remove(out)) {
            return;
        }
        active = List.copyOf(left);
        outs = active.toArray(new FrameOutput[0]);
        if (out == inPlaceOwner) {
            inPlace = null;
            inPlaceOwner = null;
        }
        if (out == ring) {
            ring = null; // no more switches: a failed ring opens no further file
        }
        String why = out.abandon(e);
        long kept = out instanceof PcapngOutput p ? p.eventsKept(eventCount) : eventCount;
        failures.add(new OutputFailure(out.describe(), why, kept));
    }

    /** Event frames handed to the outputs so far (the emitting thread only). */
    long eventsHanded() {
        return eventCount;
    }

    /**
     * Event frames that are in the file for certain (written in whole blocks, not buffered), when
     * the one output is a pcapng file written by {@link AsyncFileChannel}; else (or once an output
     * failed) {@link Long#MAX_VALUE}: nothing to wait for. The spool's slots are reused only up to
     * this ({@link Spool}). Any thread.
     */
    long eventsDurable() {
        FrameOutput[] o = outs;
        if (o.length == 1 && failures.isEmpty() && o[0] instanceof PcapngOutput p) {
            return p.eventsDurable();
        }
        return Long.MAX_VALUE;
    }

    /** Outputs that failed during the capture and were dropped (empty when none did). */
    public List<OutputFailure> failures() {
        return List.copyOf(failures);
    }

    /**
     * Events not written to at least one output: those after its failure (the largest count of
     * any failed output).
     */
    public long notWritten() {
        return OutputFailure.notWritten(failures, events.get());
    }

    /**
     * Gives up on live outputs (a pipe, a FIFO) whose reader has taken nothing for a while: their
     * channels are closed, so a write blocked in them fails and the emitter drops them. Any thread.
     *
     * @param reason what the failure will say
     * @return how many outputs were given up on
     */
    public int abandonStalled(String reason) {
        int n = 0;
        for (FrameOutput o : active) {
            if (o instanceof PcapngOutput p && p.live()) {
                p.interruptStalled(reason);
                n++;
            }
        }
        return n;
    }

    /**
     * Reports events lost on a CPU after its last event frame (or on events not emitted): a LOST
     * message at the end of the stream (§4.5), whose pcapng drop count the statistics block totals.
     *
     * @param cpu  the CPU
     * @param lost events, at least 1
     */
    public void lostAtEnd(int cpu, long lost) throws IOException {
        finish();
        if (tracker != null) {
            tracker.lost(cpu, lost, lastTime);
        } else {
            for (FrameOutput out : outs) {
                try {
                    out.dropsAfterLast(cpu, lost);
                } catch (IOException e) {
                    drop(out, e);
                }
            }
        }
    }

    /** Ends the stream: a capture without any event still starts with its CAPTURE frame. */
    public void finish() throws IOException {
        if (!begun) {
            begin(lastTime != 0 ? lastTime : ClockSync.epochNanos(Instant.now()));
        }
        publish();
    }

    /** {@link ContextPlanner.Out}: each fragment frame through the scratch buffer to the outputs. */
    private void sendContext(ContextMessage m, int cpu, long timeNs, long lost, boolean repeatOnly) throws IOException {
        List<ByteBuffer> fragments = encoder.context(m, cpu, littleEndian, timeNs);
        for (ByteBuffer f : fragments) {
            int n = f.remaining();
            writeEachActive(f, timeNs, lost, repeatOnly);
            lost = 0;
            frameCount++;
            byteCount += n;
            contextFrames.lazySet(++contextCount);
            publish();
        }
    }

    /** {@link FrameOutput#writeEach} to the outputs still written, dropping one that fails. */
    private void writeEachActive(ByteBuffer frame, long timeNs, long lost, boolean repeatOnly) {
        FrameOutput.writeEach(active, scratch, frame, timeNs, lost, repeatOnly, this::drop);
    }

    private void repeatIfDue() throws IOException {
        if (tracker != null && anyRepeats && begun && tracker.repeatDue(System.nanoTime())) {
            tracker.repeat(ClockSync.epochNanos(Instant.now()));
        }
    }

    /** Pushes out anything the outputs buffer. */
    public void flush() throws IOException {
        publish();
        for (FrameOutput out : outs) {
            try {
                out.flush();
            } catch (IOException e) {
                drop(out, e);
            }
        }
    }

    /**
     * Tells every output that the emitter is idle ({@link FrameOutput#idle()}), and repeats the
     * context on live interfaces when due. Called from the emitting thread.
     */
    public void idle() throws IOException {
        publish();
        if (begun) {
            repeatIfDue();
        }
        for (FrameOutput out : outs) {
            try {
                out.idle();
            } catch (IOException e) {
                drop(out, e);
            }
        }
    }

    /** Frames written (event and context frames; per output). */
    public long frames() {
        return frames.get();
    }

    /** Event frames written. */
    public long events() {
        return events.get();
    }

    /** Context frames written (repeats included). */
    public long contextFrames() {
        return contextFrames.get();
    }

    /** Bytes of frames written (bare frames, per output). */
    public long bytes() {
        return bytes.get();
    }

    /** Event frames an output cut to its maximum frame size (the largest count of any output). */
    public long truncated() {
        long t = 0;
        for (FrameOutput out : outputs) {
            t = Math.max(t, out.truncated());
        }
        return t;
    }

    /** Addresses and tasks the context could not describe because a cap was reached. */
    public long contextDropped() {
        return tracker == null ? 0 : droppedBefore + tracker.dropped();
    }

    /** The outputs. */
    public List<FrameOutput> outputs() {
        return outputs;
    }

    /**
     * Closes every output (an output that failed during the capture is closed quietly: its failure
     * is in {@link #failures()}).
     *
     * @throws IOException the first failure closing an output that had not failed before
     */
    @Override
    public void close() throws IOException {
        IOException first = null;
        for (FrameOutput out : outputs) {
            try {
                out.close();
            } catch (IOException e) {
                if (first == null) {
                    first = e;
                }
            }
        }
        if (first != null) {
            throw first;
        }
    }
}
