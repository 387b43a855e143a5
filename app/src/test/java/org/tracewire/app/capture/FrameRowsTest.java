package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import org.junit.jupiter.api.Test;
import org.tracewire.protocol.BackendClient;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.format.TaskFields;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.protocol.Messages;
import org.tracewire.protocol.Protocol;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.tracetext.TraceLinePrefix;
import org.tracewire.wire.ContextMessages;
import org.tracewire.wire.ContextPlanner;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.RecordFrames;
import org.tracewire.tracefs.EventSelection;

/**
 * Live rows from streamed v2 frames: the frames a capture of the page fixture's records would
 * stream (CAPTURE, FORMAT, SYMBOLS, PROCESS, LOST and EVENT frames, in order) become rows with the
 * kernel's text, the task name from PROCESS context, the wall-clock time and the record itself, in
 * whatever batches they arrive; and the same through the backend protocol ({@code frames} messages
 * on a scripted backend) into the capture view's table.
 */
class FrameRowsTest {
    /** The frames, bare, in stream order. */
    static List<ByteBuffer> frames(List<EventRecord> recs, ContextPcapng.Source src) throws Exception {
        List<ByteBuffer> out = new ArrayList<>();
        var capture = ContextMessages.capture(new ContextMessages.Capture("live", "6.18", null, "host", src.clock(),
                src.clockOffset(), 0, src.layout(), src.headerPage(), src.headerEvent(), ContextMessages.constants(src.context().hz(), src.context().variables()),
                "test", List.of()));
        RecordFrames rf = new RecordFrames(new FrameEncoder(1514 - 14), capture,
                ContextPlanner.forRecords(ContextPlanner.Sources.ofFile(src.layout(), src.context(), src.tasks(), null,
                        src.formatText(), null)), src.clockOffset(),
                false, true, (f, t, len, lost) -> {
                    ByteBuffer copy = ByteBuffer.allocate(f.remaining());
                    copy.put(f.duplicate()).flip();
                    out.add(copy);
                });
        for (int i = 0; i < recs.size(); i++) {
            rf.event(recs.get(i), i == 7 ? 3 : 0);
        }
        return out;
    }

    /**
     * Without PROCESS context (no saved names), a row's task is named as the records named it last
     * (the fields that name a task with their comm: a switch's {@code prev_comm}/{@code next_comm},
     * a wakeup's {@code comm}, …), else {@code <...>}.
     */
    @Test
    void withoutContextRowsNameTasksAsTheRecordsDid() throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 8000);
        ContextPcapng.Source src = ContextPcapng.snapshot(recs).withTasks(SavedCmdlines.empty());
        List<EventRow> rows = new FrameRows().rows(frames(recs, src));
        assertEquals(recs.size(), rows.size());
        Map<Integer, String> named = new HashMap<>();
        int learned = 0;
        for (int i = 0; i < recs.size(); i++) {
            EventRecord r = recs.get(i);
            for (TaskFields.TaskField t : TaskFields.of(r.format())) {
                if (t.comm() != null && !r.string(t.comm()).isEmpty() && r.integer(t.pid()) > 0) {
                    named.put((int) r.integer(t.pid()), r.string(t.comm()));
                }
            }
            String want = r.pid() == 0 ? rows.get(i).comm() : named.getOrDefault(r.pid(), "<...>");
            assertEquals(want, rows.get(i).comm(), "row " + i);
            learned += want.equals("<...>") || r.pid() == 0 ? 0 : 1;
        }
        assertTrue(learned > 1000, "rows named from the records: " + learned);
    }

    private static KernelTextRenderer expected(ContextPcapng.Source src) {
        PrintContext c = src.context();
        return new KernelTextRenderer(new TraceLinePrefix(src.tasks(), src.clock()), src.layout(),
                new PrintContext(SymbolResolver.none(), c.printkFormats(), c.hz(), c.enums(), c.variables()));
    }

    @Test
    void streamedFramesBecomeRowsWithTheirCapturesContext() throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 8000);
        ContextPcapng.Source src = ContextPcapng.snapshot(recs);
        List<ByteBuffer> frames = frames(recs, src);
        KernelTextRenderer want = expected(src);
        FrameRows fr = new FrameRows();
        List<EventRow> rows = new ArrayList<>();
        Random rnd = new Random(7);
        for (int i = 0; i < frames.size(); ) {
            int n = Math.min(frames.size() - i, 1 + rnd.nextInt(300));
            rows.addAll(fr.rows(frames.subList(i, i + n)));
            i += n;
        }
        assertEquals(recs.size(), rows.size());
        for (int i = 0; i < recs.size(); i++) {
            EventRecord r = recs.get(i);
            EventRow row = rows.get(i);
            assertEquals(src.clockOffset() + r.timestampNs(), row.ts(), "row " + i);
            assertEquals(r.cpu(), row.cpu());
            assertEquals(r.pid(), row.pid());
            assertEquals(r.format().fullName(), row.event());
            assertEquals(src.tasks().comm(r.pid()), row.comm(), "comm from PROCESS context, row " + i);
            assertEquals(want.body(r), row.text(), "row " + i);
            assertEquals(r.payload(), row.record().payload(), "row " + i);
            assertEquals(r.timestampNs(), row.record().timestampNs(), "the record keeps the trace clock");
        }
        assertEquals(List.of("cpu " + recs.get(7).cpu() + ": 3 events lost"), fr.summary());
        assertTrue(frames.size() > recs.size(), "context frames in the stream: " + (frames.size() - recs.size()));
    }

    @Test
    void aStreamJoinedLateSkipsEventsItCannotDecode() throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 2000);
        List<ByteBuffer> frames = frames(recs, ContextPcapng.snapshot(recs));
        FrameRows fr = new FrameRows();
        List<EventRow> rows = fr.rows(frames.subList(frames.size() / 2, frames.size()));
        assertTrue(rows.isEmpty(), "no CAPTURE seen: no row");
        assertTrue(fr.summary().get(0).matches("\\d+ event frames before their capture's CAPTURE context skipped "
                + "\\(the stream was joined late\\)"), fr.summary().toString());
        // the live interfaces repeat CAPTURE (and every FORMAT) every 2 s: from then on rows come
        rows = fr.rows(frames);
        assertEquals(recs.size(), rows.size());
    }

    @Test
    void framesMessagesFillTheCaptureTable() throws Exception {
        List<EventRecord> recs = FixtureRecords.load().subList(0, 3000);
        ContextPcapng.Source src = ContextPcapng.snapshot(recs);
        List<ByteBuffer> frames = frames(recs, src);
        PipedInputStream fromBackend = new PipedInputStream(1 << 22);
        PipedOutputStream backendOut = new PipedOutputStream(fromBackend);
        PipedInputStream commands = new PipedInputStream(1 << 20);
        BackendClient client = new BackendClient(fromBackend, new PipedOutputStream(commands), null);
        BufferedReader backendIn = new BufferedReader(new InputStreamReader(commands, StandardCharsets.UTF_8));
        CaptureViewModel vm = new CaptureViewModel(new DirectTaskExecutor(), () -> client);
        vm.getEvents().add(EventSelection.parse("sched:sched_switch", ""));
        Thread backend = new Thread(() -> {
            try {
                JsonNode start = new ObjectMapper().readTree(backendIn.readLine());
                assertEquals("startCapture", start.get("type").asText());
                backendOut.write(Protocol.encodeLine(new Messages.Started("tracewire-1", null, null),
                        start.get("id").asLong(), Protocol.MAX_MESSAGE_BYTES));
                for (int i = 0; i < frames.size(); i += 1000) {
                    backendOut.write(Protocol.encodeLine(Messages.Frames.of(frames.subList(i, Math.min(frames.size(), i + 1000))),
                            null, Protocol.MAX_MESSAGE_BYTES));
                }
                backendOut.flush();
            } catch (Exception e) {
                throw new RuntimeException(e);
            }
        });
        backend.start();
        vm.start();
        backend.join(30_000);
        long deadline = System.nanoTime() + 30_000_000_000L;
        while (vm.receivedProperty().get() < recs.size() && System.nanoTime() < deadline) {
            Thread.sleep(20);
            vm.flush();
        }
        assertEquals(recs.size(), vm.receivedProperty().get(), vm.statusProperty().get());
        List<EventRow> rows = vm.getRows();
        assertEquals(recs.size(), rows.size());
        for (int i = 0; i < rows.size(); i++) {
            assertEquals(src.tasks().comm(recs.get(i).pid()), rows.get(i).comm(), "row " + i);
        }
        backendOut.close();
    }
}
