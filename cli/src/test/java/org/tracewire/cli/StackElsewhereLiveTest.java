package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.testing.Prerequisites;

/**
 * A capture with kernel and user stacks prints the same symbols where neither the kernel's
 * {@code kallsyms} nor the traced program can be read (issue 35): {@code report} runs in a mount
 * namespace of its own ({@code unshare -m}) with {@code /proc/kallsyms} covered by an empty file and
 * the traced program's folder by an empty tmpfs; its text equals the text printed here.
 */
@Tag("live")
@Tag("concurrent")
class StackElsewhereLiveTest {
    @Test
    void aCaptureWithStacksPrintsTheSameSymbolsWithoutKallsymsOrTheBinaries(@TempDir Path dir) throws Exception {
        Prerequisites.requireRoot();
        Prerequisites.requireTracefs();
        Prerequisites.requireTool("unshare");
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Path sh = Files.copy(Path.of("/bin/dash").toRealPath(), bin.resolve("traced-sh"), StandardCopyOption.COPY_ATTRIBUTES);
        Path file = dir.resolve("stacks.pcapng");
        ByteArrayOutputStream err = new ByteArrayOutputStream();
        // --read-ahead 0 and a shell that lives on: its stacks are framed while it runs, so its user
        // frames are resolved in it (a loaded machine frames late)
        int rc = Main.run(new String[] {"capture", "-e", "syscalls:sys_enter_openat", "--stack=both", "--read-ahead",
            "0", "-w", file.toString(), "--", sh.toString(), "-c",
            "for i in 1 2 3 4 5 6 7 8 9 10; do : < /proc/version; done; sleep 2"},
                new PrintStream(new ByteArrayOutputStream()), new PrintStream(err));
        assertEquals(0, rc, err.toString(StandardCharsets.UTF_8));
        String here = report(List.of(), file);
        String elsewhere = report(List.of("unshare", "-m", "sh", "-c",
                "mount --make-rprivate / && mount --bind /dev/null /proc/kallsyms && mount -t tmpfs none '" + bin
                        + "' && exec \"$@\"", "sh"), file);
        assertTrue(here.contains(" => do_syscall_64"), "kernel frames named:\n" + head(here));
        assertTrue(here.lines().anyMatch(l -> l.startsWith(" =>  <") && l.contains("+0x")),
                "user frames named:\n" + head(here));
        assertEquals(here, elsewhere, "the same text without kallsyms and the traced program");
    }

    private static String head(String s) {
        return s.lines().limit(30).reduce("", (a, b) -> a + b + "\n");
    }

    /** report FILE in a JVM of its own, after {@code prefix} (a command that runs its arguments). */
    private static String report(List<String> prefix, Path file) throws Exception {
        List<String> cmd = new ArrayList<>(prefix);
        cmd.addAll(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-cp",
                System.getProperty("java.class.path"), "org.tracewire.cli.Main", "report", file.toString()));
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.DISCARD).start();
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        p.getInputStream().transferTo(out);
        assertTrue(p.waitFor(120, TimeUnit.SECONDS));
        assertEquals(0, p.exitValue(), "report in " + prefix);
        return out.toString(StandardCharsets.UTF_8);
    }
}
