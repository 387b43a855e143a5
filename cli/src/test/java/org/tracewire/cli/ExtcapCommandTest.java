package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.tracefs.Tracefs;

/**
 * {@code tracewire extcap} without root or Wireshark: the protocol's answers, the option parsing,
 * the installer's folders and script (the installed script is run for real), and the refusals.
 */
class ExtcapCommandTest {
    /** {@code tshark -G folders} of Debian 12's Wireshark 4.0.17 as root. */
    static final String FOLDERS_40 = """
            Temp:                	/tmp
            Personal configuration:	/root/.config/wireshark
            Global configuration:	/usr/share/wireshark
            System:              	/etc
            Program:             	/usr/bin
            Personal Plugins:    	/root/.local/lib/wireshark/plugins/4.0
            Global Plugins:      	/usr/lib/x86_64-linux-gnu/wireshark/plugins/4.0
            Personal Lua Plugins:	/root/.local/lib/wireshark/plugins
            Global Lua Plugins:  	/usr/lib/x86_64-linux-gnu/wireshark/plugins
            Extcap path:         	/usr/lib/x86_64-linux-gnu/wireshark/extcap
            MaxMind database path:	/usr/share/GeoIP
            MaxMind database path:	/var/lib/GeoIP
            """;

    @Test
    void answersWiresharksQueries() {
        FormatsCommandTest.Result i = FormatsCommandTest.run("extcap", "--extcap-interfaces", "--extcap-version=4.0");
        assertEquals(0, i.code(), i.err());
        List<String> lines = i.out().lines().toList();
        assertTrue(lines.get(0).startsWith("extcap {version="), i.out());
        assertEquals("interface {value=tracewire}{display=tracewire: Linux trace events}", lines.get(1));

        FormatsCommandTest.Result d = FormatsCommandTest.run("extcap", "--extcap-dlts", "--extcap-interface", "tracewire");
        assertEquals(0, d.code(), d.err());
        assertTrue(d.out().startsWith("dlt {number=162}{name=USER15}"), d.out());

        FormatsCommandTest.Result c = FormatsCommandTest.run("extcap", "--extcap-config", "--extcap-interface", "tracewire");
        assertEquals(0, c.code(), c.err());
        List<String> config = c.out().lines().toList();
        for (String call : List.of("--events", "--filters", "--buffer-kb", "--clock", "--install-dissector")) {
            assertTrue(config.stream().anyMatch(l -> l.startsWith("arg ") && l.contains("{call=" + call + "}")), call);
        }
        assertTrue(config.stream().anyMatch(l -> l.contains("{default=sched:sched_switch,sched:sched_wakeup}")));
        assertEquals(1, config.stream().filter(l -> l.startsWith("value {arg=3}") && l.contains("{default=true}")).count());
        assertTrue(config.stream().anyMatch(l -> l.equals("value {arg=3}{value=mono}{display=mono}{default=true}")));
        for (String l : config) {
            // {key=value} sentences: no stray braces inside values
            assertTrue(l.matches("(arg|value) (\\{[a-z]+=[^{}]*\\})+"), l);
        }

        FormatsCommandTest.Result bad = FormatsCommandTest.run("extcap", "--extcap-dlts", "--extcap-interface", "eth0");
        assertEquals(Main.EXIT_USAGE, bad.code());
        assertTrue(bad.err().contains("unknown interface 'eth0'"), bad.err());
    }

    @Test
    void offersTheSshInterface() {
        FormatsCommandTest.Result i = FormatsCommandTest.run("extcap", "--extcap-interfaces");
        assertEquals("interface {value=tracewire-ssh}{display=tracewire over SSH: Linux trace events of another host}",
                i.out().lines().toList().get(2));
        FormatsCommandTest.Result d = FormatsCommandTest.run("extcap", "--extcap-dlts", "--extcap-interface", "tracewire-ssh");
        assertTrue(d.out().startsWith("dlt {number=162}{name=USER15}"), d.out());
        FormatsCommandTest.Result c = FormatsCommandTest.run("extcap", "--extcap-config", "--extcap-interface", "tracewire-ssh");
        assertEquals(0, c.code(), c.err());
        List<String> config = c.out().lines().toList();
        for (String call : List.of("--remote-host", "--remote-port", "--remote-username", "--sshkey", "--remote-path",
                "--ssh-options", "--events", "--filters", "--buffer-kb", "--clock")) {
            assertTrue(config.stream().anyMatch(l -> l.startsWith("arg ") && l.contains("{call=" + call + "}")), call);
        }
        for (String l : config) {
            assertTrue(l.matches("arg (\\{[a-z]+=[^{}]*\\})+"), l);
        }
        FormatsCommandTest.Result noHost = FormatsCommandTest.run("extcap", "--capture", "--extcap-interface", "tracewire-ssh",
                "--fifo", "/nonexistent/fifo");
        assertEquals(Main.EXIT_USAGE, noHost.code());
        assertTrue(noHost.err().contains("no remote host"), noHost.err());
    }

    @Test
    void sshEventsAreNamedOneByOne() {
        assertEquals(List.of("-e", "sched:sched_switch", "-f", "prev_pid == 1", "-e", "sched:sched_wakeup"),
                ExtcapProtocol.remoteEventArgs("sched:sched_switch, sched:sched_wakeup", "sched:sched_switch=prev_pid == 1"));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ExtcapProtocol.remoteEventArgs("sched:*", null));
        assertTrue(e.getMessage().contains("over SSH name each event"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ExtcapProtocol.remoteEventArgs("sched:sched_switch", "irq:x=a"));
    }

    @Test
    void ignoresOptionsOfNewerWiresharks() {
        FormatsCommandTest.Result r = FormatsCommandTest.run("extcap", "--extcap-interfaces", "--extcap-version=4.4",
                "--debug", "--some-future-option");
        assertEquals(0, r.code(), r.err());
    }

    @Test
    void refusesACaptureFilterAndCapturesWithoutAFifo() {
        FormatsCommandTest.Result r = FormatsCommandTest.run("extcap", "--capture", "--extcap-interface", "tracewire",
                "--fifo", "/nonexistent/fifo", "--extcap-capture-filter", "tcp port 80");
        assertEquals(Main.EXIT_FAILURE, r.code());
        assertTrue(r.err().contains("capture filters are not supported"), r.err());
        FormatsCommandTest.Result noFifo = FormatsCommandTest.run("extcap", "--capture", "--extcap-interface", "tracewire");
        assertEquals(Main.EXIT_USAGE, noFifo.code());
    }

    @Test
    void eventsAndFiltersBecomeSelections() {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        List<EventSelection> s = ExtcapProtocol.selections(snap, "sched:sched_switch, sched:sched_wakeup",
                "sched:sched_switch=prev_pid == 1 && next_pid != 0");
        assertEquals(List.of(new EventSelection("sched", "sched_switch", "prev_pid == 1 && next_pid != 0"),
                new EventSelection("sched", "sched_wakeup", null)), s);
        List<EventSelection> all = ExtcapProtocol.selections(snap, "sched:*,sched:sched_switch", "sched:*=pid > 0");
        assertTrue(all.size() > 10);
        assertEquals(all.size(), all.stream().distinct().count(), "no duplicates");
        assertTrue(all.stream().allMatch(e -> "pid > 0".equals(e.filter())), "a system's filter applies to each event");
        assertThrows(IllegalArgumentException.class, () -> ExtcapProtocol.selections(snap, "sched:nope", null));
        assertEquals(List.of(new EventSelection("sched", "sched_switch", null)),
                ExtcapProtocol.selections(snap, "sched_switch", null), "trace-cmd's bare event name");
        assertThrows(IllegalArgumentException.class, () -> ExtcapProtocol.selections(snap, " ", null));
        IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
                () -> ExtcapProtocol.selections(snap, "sched:sched_switch", "sched:sched_wakeup=pid == 1"));
        assertTrue(e.getMessage().contains("not among the events"), e.getMessage());
        assertThrows(IllegalArgumentException.class, () -> ExtcapProtocol.parseFilters("sched:sched_switch"));
        assertThrows(IllegalArgumentException.class, () -> ExtcapProtocol.parseFilters("sched:sched_switch= "));
        assertThrows(IllegalArgumentException.class,
                () -> ExtcapProtocol.parseFilters("sched:sched_switch=a == 1;sched:sched_switch=b == 2"));
        assertEquals(Map.of("a:b", "x == 1", "c:d", "y == \"2\""), ExtcapProtocol.parseFilters(" a:b = x == 1 ;; c:d=y == \"2\";"));
    }

    @Test
    void findsWiresharksExtcapFolder() {
        Map<String, Path> f = ExtcapInstaller.parseFolders(FOLDERS_40);
        assertEquals(Path.of("/usr/lib/x86_64-linux-gnu/wireshark/extcap"), f.get("Extcap path"));
        assertEquals(Path.of("/root/.local/lib/wireshark/plugins"), f.get("Personal Lua Plugins"));
        assertEquals(Path.of("/usr/share/GeoIP"), f.get("MaxMind database path"), "the first of a repeated label");
        assertEquals(Path.of("/usr/lib/x86_64-linux-gnu/wireshark/extcap"), ExtcapInstaller.extcapFolder(f, true).orElseThrow());
        assertTrue(ExtcapInstaller.extcapFolder(f, false).isEmpty(), "4.0 has no personal extcap folder");
        Map<String, Path> f42 = ExtcapInstaller.parseFolders(FOLDERS_40
                + "Personal Extcap path:\t/home/u/.local/lib/wireshark/extcap\n");
        assertEquals(Path.of("/home/u/.local/lib/wireshark/extcap"), ExtcapInstaller.extcapFolder(f42, false).orElseThrow());
    }

    @Test
    void theInstalledScriptRunsTheExtcapWithoutABuild(@TempDir Path dir) throws Exception {
        Path folder = dir.resolve("it's extcap");
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        String script = ExtcapInstaller.script(java, List.of(), ExtcapInstaller.classPath(null), null, "test", Map.of());
        assertFalse(script.contains("mvn") || script.contains("/tracewire\" ") , script);
        Path installed = ExtcapInstaller.install(folder, script);
        assertEquals(folder.resolve("tracewire"), installed);
        assertTrue(Files.isExecutable(installed));
        Process p = new ProcessBuilder(installed.toString(), "--extcap-interfaces", "--extcap-version=4.0")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue());
        assertTrue(out.contains("interface {value=tracewire}"), out);
        // a question only the JVM answers: the script execs java with the class path
        Process c = new ProcessBuilder(installed.toString(), "--extcap-config", "--extcap-interface", "tracewire")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String config = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(c.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, c.exitValue());
        assertTrue(config.contains("arg {number=") && config.contains("{call=--events}"), config);

        ExtcapInstaller.install(folder, script); // replacing our own is fine
        assertTrue(ExtcapInstaller.uninstall(folder));
        assertFalse(Files.exists(installed));
        assertFalse(ExtcapInstaller.uninstall(folder));
        Files.writeString(installed, "#!/bin/sh\necho someone else's\n");
        assertThrows(IOException.class, () -> ExtcapInstaller.install(folder, script));
        assertThrows(IOException.class, () -> ExtcapInstaller.uninstall(folder));
        assertEquals("#!/bin/sh\necho someone else's\n", Files.readString(installed), "a foreign file is left alone");
    }

    /** The launcher's capture JVM limits go into the installed script, quoted, before the class path. */
    @Test
    void theInstalledScriptStartsItsJvmWithTheCaptureLimits(@TempDir Path dir) throws Exception {
        Path java = Path.of(System.getProperty("java.home"), "bin", "java");
        String script = ExtcapInstaller.script(java, List.of("-Xmx128m", "-XX:MaxDirectMemorySize=176m"),
                ExtcapInstaller.classPath(null), null, "test", Map.of());
        assertTrue(script.contains(" '-Xmx128m' '-XX:MaxDirectMemorySize=176m' '-cp' "), script);
        Path installed = ExtcapInstaller.install(dir, script);
        Process c = new ProcessBuilder(installed.toString(), "--extcap-config", "--extcap-interface", "tracewire")
                .redirectError(ProcessBuilder.Redirect.DISCARD).start();
        String config = new String(c.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(c.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, c.exitValue());
        assertTrue(config.contains("{call=--events}"), config);
    }

    /**
     * Wireshark asks every extcap for its interfaces and DLTs at each start: the script answers
     * those itself (the same lines as the Java command) without starting a JVM.
     */
    @Test
    void theScriptAnswersInterfacesAndDltsWithoutAJvm(@TempDir Path dir) throws Exception {
        List<String> clocks = List.of("local", "mono", "boot");
        String script = ExtcapInstaller.script(dir.resolve("no-such-java"), List.of(), "/nonexistent", null, "9.9",
                Map.of("tracewire", ExtcapProtocol.config(clocks), "tracewire-ssh", ExtcapProtocol.configSsh()));
        Path installed = ExtcapInstaller.install(dir, script);
        for (List<String> q : List.of(List.of("--extcap-interfaces", "--extcap-version=4.0"),
                List.of("--extcap-dlts", "--extcap-interface", "tracewire"),
                List.of("--extcap-config", "--extcap-interface", "tracewire"),
                List.of("--extcap-interface", "tracewire-ssh", "--extcap-config", "--extcap-version=4.0"))) {
            List<String> cmd = new ArrayList<>(List.of(installed.toString()));
            cmd.addAll(q);
            Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            assertTrue(p.waitFor(10, TimeUnit.SECONDS));
            assertEquals(0, p.exitValue(), q + ": " + out);
            List<String> expected = q.contains("--extcap-dlts") ? ExtcapProtocol.dlts()
                    : q.contains("tracewire-ssh") ? ExtcapProtocol.configSsh()
                    : q.contains("--extcap-config") ? ExtcapProtocol.config(clocks)
                    : ExtcapProtocol.interfaces("9.9");
            assertEquals(expected, out.lines().toList(), q.toString());
        }
        // a reload of an option is the JVM's: here, with no java, the script fails rather than answer
        Process r = new ProcessBuilder(installed.toString(), "--extcap-config", "--extcap-interface", "tracewire",
                "--extcap-reload-option", "clock").redirectErrorStream(true).start();
        r.getInputStream().readAllBytes();
        assertTrue(r.waitFor(10, TimeUnit.SECONDS));
        assertTrue(r.exitValue() != 0, "went to the (missing) JVM");
    }

    @Test
    void installIntoAGivenFolderAndUninstall(@TempDir Path dir) throws Exception {
        FormatsCommandTest.Result r = FormatsCommandTest.run("extcap", "--install", "--no-dissector", "--extcap-dir",
                dir.toString(), "--class-path", ExtcapInstaller.classPath(null));
        assertEquals(0, r.code(), r.err());
        assertTrue(r.out().contains(dir.resolve("tracewire").toString()), r.out());
        assertTrue(Files.isExecutable(dir.resolve("tracewire")));
        FormatsCommandTest.Result u = FormatsCommandTest.run("extcap", "--uninstall", "--extcap-dir", dir.toString());
        assertEquals(0, u.code(), u.err());
        assertFalse(Files.exists(dir.resolve("tracewire")));
    }

    @Test
    void shellQuoting() {
        assertEquals("'a b'", ExtcapInstaller.quote("a b"));
        assertEquals("'it'\\''s'", ExtcapInstaller.quote("it's"));
        assertTrue(ExtcapEnding.closedPipe(new IOException("x", new IOException("Broken pipe"))));
        assertFalse(ExtcapEnding.closedPipe(new IOException("No space left on device")));
    }
}
