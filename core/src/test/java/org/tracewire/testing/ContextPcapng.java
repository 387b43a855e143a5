package org.tracewire.testing;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;
import org.tracewire.format.KernelLayout;
import org.tracewire.pcapng.InterfaceInfo;
import org.tracewire.pcapng.PcapngWriter;
import org.tracewire.pcapng.SectionInfo;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.record.EventRecord;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelContext;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.wire.ContextMessages;
import org.tracewire.wire.ContextPlanner;
import org.tracewire.wire.FrameEncoder;
import org.tracewire.wire.RecordFrames;

/**
 * Writes records as a self-describing pcapng of tracewire version-2 frames with all the context a
 * capture sends ({@link RecordFrames}, {@link ContextPlanner}): CAPTURE (clock, offset, header texts,
 * constants), FORMAT, SYMBOLS, PROCESS and LOST, one interface of link type 162. Unlike
 * {@link FixturePcapng} (formats only) the file names tasks and symbols, as a live capture's would.
 */
public final class ContextPcapng {
    private ContextPcapng() {
    }

    /**
     * What the writer knows about the traced kernel.
     *
     * @param host        host name (CAPTURE item 4)
     * @param captureId   capture id (CAPTURE item 1)
     * @param layout      byte order and long size
     * @param context     symbols, printk strings, HZ, enums, variables
     * @param tasks       task names
     * @param formatText  an event's {@code format} text
     * @param headerPage  {@code events/header_page} text
     * @param headerEvent {@code events/header_event} text
     * @param clock       trace clock name
     * @param clockOffset epoch ns = trace ns + this
     */
    public record Source(String host, String captureId, KernelLayout layout, PrintContext context, SavedCmdlines tasks,
                         Function<EventFormat, String> formatText, String headerPage, String headerEvent, String clock,
                         long clockOffset) {
        /** This source with other task names. */
        public Source withTasks(SavedCmdlines t) {
            return new Source(host, captureId, layout, context, t, formatText, headerPage, headerEvent, clock, clockOffset);
        }

        /** This source under another host name and capture id. */
        public Source withHost(String h) {
            return new Source(h, "capture of " + h, layout, context, tasks, formatText, headerPage, headerEvent, clock,
                    clockOffset);
        }
    }

    /**
     * The snapshot as the source (its formats, header texts and printk strings; no kallsyms), task
     * names learned from the records' own {@code sched_switch} comms, clock {@code local}, offset
     * {@link FixturePcapng#EPOCH_NS}.
     */
    public static Source snapshot(List<EventRecord> records) {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        return new Source("fixture", "fixture capture", snap.layout(), KernelContext.of(snap), tasksOf(records),
                f -> snap.read("events/" + f.system() + "/" + f.name() + "/format"), snap.read("events/header_page"),
                snap.read("events/header_event"), "local", FixturePcapng.EPOCH_NS);
    }

    /** pid → comm as {@code sched_switch} records name them (prev and next), the last name winning. */
    public static SavedCmdlines tasksOf(List<EventRecord> records) {
        Map<Integer, String> m = new HashMap<>();
        for (EventRecord r : records) {
            if (r.format().fullName().equals("sched:sched_switch")) {
                Field pp = r.format().field("prev_pid");
                Field pc = r.format().field("prev_comm");
                Field np = r.format().field("next_pid");
                Field nc = r.format().field("next_comm");
                m.put((int) r.integer(pp), r.string(pc));
                m.put((int) r.integer(np), r.string(nc));
            }
        }
        StringBuilder sb = new StringBuilder();
        m.forEach((pid, comm) -> sb.append(pid).append(' ').append(comm).append('\n'));
        return SavedCmdlines.parse(sb.toString());
    }

    /**
     * Writes the file.
     *
     * @param lost events lost before the record at an index (may be empty)
     * @return the file
     * @throws IOException when writing fails
     */
    public static Path write(Path file, List<EventRecord> records, Source s, Map<Integer, Long> lost) throws IOException {
        var capture = ContextMessages.capture(new ContextMessages.Capture(s.captureId(), "6.18.0-test", null, s.host(),
                s.clock(), s.clockOffset(), 0, s.layout(), s.headerPage(), s.headerEvent(),
                ContextMessages.constants(s.context().hz(), s.context().variables()), "test", List.of()));
        ContextPlanner sight = ContextPlanner.forRecords(ContextPlanner.Sources.ofFile(s.layout(), s.context(), s.tasks(),
                null, s.formatText(), null));
        try (PcapngWriter w = PcapngWriter.create(file, SectionInfo.host())) {
            int iface = w.addInterface(InterfaceInfo.tracewire("tracewire", "ftrace events of " + s.host(),
                    FrameEncoder.MAX_FRAME));
            RecordFrames frames = new RecordFrames(new FrameEncoder(), capture, sight, s.clockOffset(), false,
                    s.layout().byteOrder() == ByteOrder.LITTLE_ENDIAN,
                    (f, time, length, dropped) -> w.writePacket(iface, time, f, length, dropped));
            for (int i = 0; i < records.size(); i++) {
                frames.event(records.get(i), lost.getOrDefault(i, 0L));
            }
            frames.finish(Map.of(), s.clockOffset());
        }
        return file;
    }
}
