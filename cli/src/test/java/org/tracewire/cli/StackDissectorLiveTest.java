package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * Stack traces in Wireshark: a live {@code capture --stack=both} of a shell's children's
 * {@code openat} calls and the shell's switches, decoded by tshark with the generated dissector. Every stack record's Info is the kernel's
 * text with its lines joined, as {@code report} renders it from the file (user frames the capture
 * resolved with their function); its frames are {@code tracewire.stack.func} items a display filter
 * finds; each stack record links to its event and the event back to it ({@code tracewire.stack.event},
 * {@code tracewire.event.stack}); a resolved user frame names its module with the build id its
 * file holds; no Lua error (tshark exits 0 when a script fails, so the fields are
 * what is asserted).
 */
@Tag("live")
@Tag("concurrent")
@Tag("tshark")
class StackDissectorLiveTest {
    @Test
    void stackFramesAreFilterableFieldsAndInfoIsTheKernelsText(@TempDir Path dir) throws Exception {
        Prerequisites.requireTracefs();
        Prerequisites.requireTool("tshark");
        Path pcap = dir.resolve("stacks.pcapng");
        Path plugin = dir.resolve("tracewire.lua");
        // a shell that lives on after the capture (its user stacks are resolved while it runs), and its
        // children's openat calls
        Process shell = new ProcessBuilder("sh", "-c", "while :; do cat /etc/hostname > /dev/null; sleep 0.05; done")
                .start();
        FormatsCommandTest.Result c;
        try {
            c = FormatsCommandTest.run("capture", "-e", "syscalls:sys_enter_openat", "--stack=both",
                    "-e", "sched:sched_switch", "-f", "prev_pid == " + shell.pid(), "-P", Long.toString(shell.pid()),
                    "-w", pcap.toString(), "--no-iface", "--duration", "2");
        } finally {
            shell.destroy();
        }
        assertEquals(0, c.code(), c.out() + c.err());
        FormatsCommandTest.Result g = FormatsCommandTest.run("dissector", "-e", "syscalls:sys_enter_openat",
                "-w", plugin.toString());
        assertEquals(0, g.code(), g.err());

        // what report prints of each stack record, its lines joined: the expected Info
        List<String> want = new ArrayList<>();
        try (PcapngInput in = PcapngInput.open(pcap)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                EventRecord r = it.next().record();
                if (r.format().system().equals("ftrace")) {
                    want.add(in.renderer().body(r).replace("\n", ""));
                }
            }
        }
        assertTrue(want.stream().filter(w -> w.startsWith("<stack trace>")).count() >= 10, "kernel stacks: " + want);
        assertTrue(want.stream().filter(w -> w.startsWith("<user stack trace>")).count() >= 10, "user stacks: " + want);

        List<String> all = tshark(dir, plugin, pcap, "tracewire.event == \"ftrace:kernel_stack\" || "
                + "tracewire.event == \"ftrace:user_stack\"", "_ws.col.Info", "_ws.lua.error");
        assertEquals(want.size(), all.size(), "one line per stack record");
        for (int i = 0; i < all.size(); i++) {
            String[] cols = all.get(i).split("\t", -1);
            assertEquals(want.get(i), cols[0], "Info of stack record " + i);
            assertEquals("", cols[1], "no Lua error");
        }
        List<String> found = tshark(dir, plugin, pcap, "tracewire.stack.func == \"do_syscall_64\"",
                "tracewire.stack.func", "tracewire.stack.address", "_ws.lua.error");
        long kernelStacks = want.stream().filter(w -> w.startsWith("<stack trace>")).count();
        assertEquals(kernelStacks, found.size(), "every openat's kernel stack passes through do_syscall_64");
        for (String line : found) {
            String[] cols = line.split("\t", -1);
            List<String> funcs = List.of(cols[0].split(","));
            assertTrue(funcs.contains("do_syscall_64") && funcs.size() >= 3, line);
            assertEquals(funcs.size(), cols[1].split(",").length, "an address per function: " + line);
            assertEquals("", cols[2], "no Lua error");
        }
        assertFalse(tshark(dir, plugin, pcap, "_ws.lua.error", "frame.number").stream().anyMatch(l -> !l.isBlank()),
                "no frame has a Lua error");
        // the shell's user stacks (it lived on): resolved by the capture, named in Wireshark as in report
        long resolved = want.stream().filter(w -> w.startsWith("<user stack trace>") && w.contains("+0x")).count();
        List<String> user = tshark(dir, plugin, pcap, "tracewire.event == \"ftrace:user_stack\" && tracewire.stack.func",
                "tracewire.stack.func");
        assertTrue(resolved > 0, "no user stack resolved: " + want);
        assertEquals(resolved, user.size(), "user stacks with a function: " + user);
        assertTrue(user.stream().anyMatch(l -> l.contains("wait")), "the shell waits for its children: " + user);

        assertStackLinks(dir, plugin, pcap);
        assertBuildIds(dir, plugin, pcap);

        // report --json: a stack's caller array has every frame its text prints, unsigned
        FormatsCommandTest.Result json = FormatsCommandTest.run("report", "--json", pcap.toString());
        assertEquals(0, json.code(), json.err());
        int stacks = 0;
        for (String line : json.out().split("\n")) {
            if (!line.contains("\"ftrace:kernel_stack\"")) {
                continue;
            }
            var node = new com.fasterxml.jackson.databind.ObjectMapper().readTree(line);
            var caller = node.path("fields").path("caller");
            String text = node.path("text").asText();
            assertEquals(text.split("\n").length - 1, caller.size(), text);
            assertTrue(caller.get(0).isBigInteger() || caller.get(0).asLong() > 0, caller.toString());
            stacks++;
        }
        assertEquals(kernelStacks, stacks);
    }

    @Test
    void aStackChoiceNotKnownIsAUsageErrorAndLeavesNothing(@TempDir Path dir) throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        HostState before = HostState.of(top);
        FormatsCommandTest.Result c = FormatsCommandTest.run("capture", "-e", "sched:sched_switch", "--stack=kernal",
                "-w", dir.resolve("x.pcapng").toString(), "--duration", "1");
        assertEquals(2, c.code(), c.out() + c.err());
        assertTrue(c.err().contains("--stack: stack 'kernal' is not kernel, user, both or none"), c.err());
        assertEquals(List.of(), HostState.of(top).leftSince(before));
    }

    /**
     * The links between events and their stack records (two passes, as Wireshark's GUI makes: an
     * event's link forward is known once its stack record was seen): every stack record links to the
     * event it follows (the last other event of its CPU, same task, only stack records between) and
     * that event links back to it, and to nothing else; no Lua error.
     */
    static void assertStackLinks(Path dir, Path plugin, Path pcap) throws Exception {
        List<String> rows = tshark(dir, plugin, pcap, true, "tracewire.event", "frame.number", "tracewire.cpu",
                "tracewire.pid", "tracewire.event", "tracewire.stack.event", "tracewire.event.stack", "_ws.lua.error");
        Map<Integer, String[]> byFrame = new HashMap<>();
        Map<Integer, Integer> lastEvent = new HashMap<>(); // cpu -> frame of its last event other than a stack
        Map<Integer, List<Integer>> expectedStacks = new HashMap<>(); // event frame -> its stack frames
        int kernelStacks = 0;
        for (String row : rows) {
            String[] c = row.split("\t", -1);
            assertEquals(7, c.length, row);
            assertEquals("", c[6], "no Lua error: " + row);
            int frame = Integer.parseInt(c[0]);
            int cpu = Integer.parseInt(c[1]);
            byFrame.put(frame, c);
            if (c[3].startsWith("ftrace:") && c[3].endsWith("_stack")) {
                Integer e = lastEvent.get(cpu);
                assertTrue(e != null && byFrame.get(e)[2].equals(c[2]), "no event of the same task before: " + row);
                assertEquals(Integer.toString(e), c[4], "the stack record links to the event it follows: " + row);
                assertEquals("", c[5], row);
                expectedStacks.computeIfAbsent(e, k -> new ArrayList<>()).add(frame);
                kernelStacks += c[3].equals("ftrace:kernel_stack") ? 1 : 0;
            } else {
                assertEquals("", c[4], row);
                lastEvent.put(cpu, frame);
            }
        }
        assertTrue(kernelStacks >= 10, "kernel stacks: " + kernelStacks);
        int openats = 0;
        for (String[] c : byFrame.values()) {
            if (c[3].startsWith("ftrace:")) {
                continue;
            }
            int frame = Integer.parseInt(c[0]);
            List<Integer> want = expectedStacks.getOrDefault(frame, List.of());
            List<Integer> got = c[5].isEmpty() ? List.of()
                    : Arrays.stream(c[5].split(",")).map(Integer::valueOf).toList();
            assertEquals(want, got, "the event's links to its stack records: " + String.join("\t", c));
            if (c[3].equals("syscalls:sys_enter_openat")) {
                // --stack=both: the user stack (the option) then the kernel stack (the trigger)
                assertEquals(2, got.size(), String.join("\t", c));
                assertEquals("ftrace:user_stack", byFrame.get(got.get(0))[3]);
                assertEquals("ftrace:kernel_stack", byFrame.get(got.get(1))[3]);
                openats++;
            }
        }
        assertTrue(openats >= 10, "openat events: " + openats);
        // the link is a field a display filter uses: the kernel stacks of the openat events
        List<String> linked = tshark(dir, plugin, pcap, true, "tracewire.stack.event && tracewire.event == "
                + "\"ftrace:kernel_stack\" && tracewire.stack.func == \"do_syscall_64\"", "tracewire.stack.event");
        assertEquals(openats, linked.size(), "kernel stacks of openat events");
        for (String l : linked) {
            assertEquals("syscalls:sys_enter_openat", byFrame.get(Integer.valueOf(l.strip()))[3], l);
        }
    }

    /**
     * Every resolved user frame names its module and that module's GNU build id, as the capture read
     * it from the mapped file (SYMBOLS item 6): the note the file holds ({@link #noteBuildId}; Debian
     * builds every binary and library with a build id, so each module has one).
     */
    static void assertBuildIds(Path dir, Path plugin, Path pcap) throws Exception {
        List<String> rows = tshark(dir, plugin, pcap, false, "tracewire.stack.module", "tracewire.stack.module",
                "tracewire.stack.build_id", "_ws.lua.error");
        assertFalse(rows.isEmpty(), "no user frame names its module");
        Map<String, String> seen = new HashMap<>();
        for (String row : rows) {
            String[] c = row.split("\t", -1);
            assertEquals("", c[2], "no Lua error: " + row);
            String[] modules = c[0].split(",");
            String[] ids = c[1].split(",");
            assertEquals(modules.length, ids.length, "a build id per module: " + row);
            for (int i = 0; i < modules.length; i++) {
                assertTrue(ids[i].matches("[0-9a-f]{2,510}"), row);
                String before = seen.putIfAbsent(modules[i], ids[i]);
                assertTrue(before == null || before.equals(ids[i]), "one build id per module: " + row);
            }
        }
        for (Map.Entry<String, String> m : seen.entrySet()) {
            assertEquals(noteBuildId(Path.of(m.getKey())), m.getValue(), "build id of " + m.getKey());
        }
        assertTrue(seen.keySet().stream().anyMatch(f -> f.contains("libc.so")), "libc among the modules: " + seen);
    }

    /**
     * The build id a file holds, found without an ELF parser: the first {@code NT_GNU_BUILD_ID} note
     * header in its first 64 KiB (little-endian namesz 4, descsz, type 3, "GNU\0", then descsz bytes;
     * the linker puts the note right after the program headers), as lowercase hex. What {@code readelf
     * -n} prints as {@code Build ID}; readelf itself (binutils) is not among the prerequisites.
     */
    static String noteBuildId(Path file) throws Exception {
        byte[] b;
        try (var in = Files.newInputStream(file)) {
            b = in.readNBytes(65536);
        }
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(b).order(java.nio.ByteOrder.LITTLE_ENDIAN);
        for (int i = 0; i + 16 <= b.length; i += 4) {
            int desc = buf.getInt(i + 4);
            if (buf.getInt(i) == 4 && buf.getInt(i + 8) == 3 && b[i + 12] == 'G' && b[i + 13] == 'N' && b[i + 14] == 'U'
                    && b[i + 15] == 0 && desc > 0 && desc <= 64 && i + 16 + desc <= b.length) {
                return java.util.HexFormat.of().formatHex(b, i + 16, i + 16 + desc);
            }
        }
        throw new AssertionError("no NT_GNU_BUILD_ID note in the first 64 KiB of " + file);
    }

    /** tshark -T fields of the frames a display filter keeps, one line each; its exit must be 0. */
    static List<String> tshark(Path dir, Path plugin, Path pcap, String filter, String... fields) throws Exception {
        return tshark(dir, plugin, pcap, false, filter, fields);
    }

    /**
     * tshark -T fields of the frames a display filter keeps (after a first pass over all frames when
     * twoPass, tshark -2), one line each; its exit must be 0. Run with a HOME of its own under dir, so
     * a tracewire plugin installed in the user's personal plugin folder does not load beside this one.
     */
    static List<String> tshark(Path dir, Path plugin, Path pcap, boolean twoPass, String filter, String... fields)
            throws Exception {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-n", "-X", "lua_script:" + plugin, "-r", pcap.toString(),
                "-Y", filter, "-T", "fields"));
        if (twoPass) {
            cmd.add(1, "-2");
        }
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        Path out = dir.resolve("tshark.out");
        Path err = dir.resolve("tshark.err");
        Path home = Files.createDirectories(dir.resolve("tshark-home"));
        ProcessBuilder pb = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile());
        pb.environment().put("HOME", home.toString());
        pb.environment().remove("XDG_CONFIG_HOME");
        Process p = pb.start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "tshark timed out");
        assertEquals(0, p.exitValue(), Files.readString(err, StandardCharsets.UTF_8));
        return Files.readAllLines(out, StandardCharsets.UTF_8);
    }
}
