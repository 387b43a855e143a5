package org.tracewire.testing;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

/**
 * Starts {@code tshark} capturing on an interface and returns once it is really capturing (it
 * says "Capturing on ..." on stderr), instead of sleeping a guessed time: tshark's start-up
 * includes asking every installed extcap for its interfaces, which on a busy machine or with a
 * slow extcap takes seconds.
 */
public final class Tshark {
    private Tshark() {
    }

    /**
     * @param args   tshark's arguments (without "tshark"), e.g. {@code -i tw0 -c 50 -T fields -e eth.type}
     * @param stdout where tshark's standard output goes
     * @param stderr where its standard error goes, once the "Capturing on" line was seen (also kept)
     * @return the running tshark, capturing
     * @throws IOException when it cannot be started
     * @throws AssertionError when it does not start capturing within 30 s
     */
    public static Process startCapture(List<String> args, Path stdout, Path stderr) throws IOException, InterruptedException {
        List<String> cmd = new ArrayList<>();
        cmd.add("tshark");
        cmd.addAll(args);
        Process p = new ProcessBuilder(cmd).redirectOutput(stdout.toFile()).start();
        CountDownLatch capturing = new CountDownLatch(1);
        Thread pump = new Thread(() -> {
            try (BufferedReader r = new BufferedReader(new InputStreamReader(p.getErrorStream(), StandardCharsets.UTF_8));
                 var log = Files.newBufferedWriter(stderr, StandardCharsets.UTF_8)) {
                String line;
                while ((line = r.readLine()) != null) {
                    log.write(line);
                    log.newLine();
                    log.flush();
                    if (line.contains("Capturing on")) {
                        capturing.countDown();
                    }
                }
            } catch (IOException ignored) {
                // the process ended; the caller's assertions report what is missing
            }
        }, "tshark-stderr");
        pump.setDaemon(true);
        pump.start();
        boolean started = capturing.await(30, TimeUnit.SECONDS);
        if (!started) {
            p.destroy();
        }
        assertTrue(started, "tshark did not start capturing within 30 s: " + String.join(" ", cmd));
        // the "Capturing on" line is printed as the capture opens; give the kernel's packet socket a moment
        Thread.sleep(200);
        return p;
    }
}
