package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.protocol.BackendClient;
import org.tracewire.protocol.Messages;
import org.tracewire.testing.HostState;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/**
 * When the app gives up waiting for a backend's answer to a start, the capture the backend starts
 * after all is stopped, not left capturing: the real backend process (started on this JVM's class
 * path as the launcher would), a start the app waits for 1 ms only; afterwards the backend, still
 * running, reports no capture, and its tracefs instance is gone. Needs root and tracefs.
 */
@Tag("live")
@Tag("concurrent")
class LiveCaptureStartTimeoutTest {
    @Test
    void aStartTheAppGaveUpOnIsStoppedOnceTheBackendHasStartedIt(@TempDir Path dir) throws Exception {
        Prerequisites.requireRoot();
        Prerequisites.requireTracefs();
        Tracefs top = Tracefs.live();
        BackendClient[] client = new BackendClient[1];
        StringProperty status = new SimpleStringProperty("");
        LiveCapture live = new LiveCapture(new DirectTaskExecutor(), () -> {
            String java = Path.of(System.getProperty("java.home"), "bin", "java").toString();
            client[0] = BackendClient.start(List.of(java, "-cp", System.getProperty("java.class.path"),
                    "org.tracewire.backend.BackendMain"));
            return client[0];
        }, status);
        try {
            // the backend is up before the start, so only the start's answer is given up on
            assertEquals(top.cpus().size(), live.backendClient().hello().get(60, TimeUnit.SECONDS).cpus());
            live.setStartTimeout(Duration.ofMillis(1));
            Messages.CaptureRequest req = new Messages.CaptureRequest(
                    List.of(Messages.CaptureEvent.of(org.tracewire.tracefs.EventSelection.parse("sched:sched_switch", ""))),
                    "", dir.resolve("late.pcapng").toString(), 0, null);
            boolean[] started = {false};
            live.start(req, file -> started[0] = true, stats -> { });
            assertFalse(started[0], "the app gave up: " + status.get());
            assertTrue(status.get().startsWith("cannot start: "), status.get());
            assertFalse(live.runningProperty().get() || live.busyProperty().get());
            // the backend answers the start, then the stop sent after it
            Messages.Stats stats = client[0].stats().get(60, TimeUnit.SECONDS);
            assertTrue(client[0].isOpen(), "the backend still runs");
            assertTrue(java.nio.file.Files.exists(dir.resolve("late.pcapng")), "the backend did start the capture");
            assertFalse(stats.running(), "no capture left running: " + stats);
            // the backend's own instance (other processes of the machine may have theirs)
            List<String> backends = ProcessHandle.current().descendants()
                    .filter(h -> h.info().commandLine().orElse("").contains("org.tracewire.backend.BackendMain"))
                    .map(h -> "tracewire-" + h.pid()).toList();
            assertEquals(1, backends.size(), "this test's backend: " + backends);
            assertFalse(HostState.of(top).tracewireInstances().contains(backends.get(0)), "the backend's instance is gone");
        } finally {
            if (client[0] != null) {
                client[0].close();
            }
        }
    }
}
