package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
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
 * finds; no Lua error (tshark exits 0 when a
 * script fails, so the fields are what is asserted).
 */
@Tag("live")
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
        StackOracleLiveTest.assertLeftAsFound(before, HostState.of(top));
    }

    /** tshark -T fields of the frames a display filter keeps, one line each; its exit must be 0. */
    static List<String> tshark(Path dir, Path plugin, Path pcap, String filter, String... fields) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("tshark", "-n", "-X", "lua_script:" + plugin, "-r", pcap.toString(),
                "-Y", filter, "-T", "fields"));
        for (String f : fields) {
            cmd.add("-e");
            cmd.add(f);
        }
        Path out = dir.resolve("tshark.out");
        Path err = dir.resolve("tshark.err");
        Process p = new ProcessBuilder(cmd).redirectOutput(out.toFile()).redirectError(err.toFile()).start();
        assertTrue(p.waitFor(120, TimeUnit.SECONDS), "tshark timed out");
        assertEquals(0, p.exitValue(), Files.readString(err, StandardCharsets.UTF_8));
        return Files.readAllLines(out, StandardCharsets.UTF_8);
    }
}
