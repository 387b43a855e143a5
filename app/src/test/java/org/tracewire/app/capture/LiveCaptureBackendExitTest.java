package org.tracewire.app.capture;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayInputStream;
import java.io.ByteArrayOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.junit.jupiter.api.Test;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.protocol.BackendClient;

/**
 * A new backend starts only once the previous one's process has ended (it holds the TAP interface
 * until then), and the status says the app waits: the previous backend is a real process
 * ({@code sleep 1}) whose connection has closed (its output at end). No root needed.
 */
class LiveCaptureBackendExitTest {
    @Test
    void aNewBackendWaitsForThePreviousProcessToEnd() throws Exception {
        Process old = new ProcessBuilder("sleep", "1").start();
        List<BackendClient> made = new ArrayList<>();
        List<Boolean> oldAliveAtStart = new ArrayList<>();
        StringProperty status = new SimpleStringProperty("");
        // the second backend's output stays open (an unconnected pipe would end its connection at
        // once, and its "backend stopped" would race the status this test reads)
        java.io.PipedOutputStream secondOut = new java.io.PipedOutputStream();
        java.io.PipedInputStream secondIn = new java.io.PipedInputStream(secondOut);
        LiveCapture live = new LiveCapture(new DirectTaskExecutor(), () -> {
            BackendClient c = made.isEmpty()
                    ? new BackendClient(new ByteArrayInputStream(new byte[0]), new ByteArrayOutputStream(), old)
                    : new BackendClient(secondIn, new ByteArrayOutputStream(), null);
            oldAliveAtStart.add(old.isAlive());
            made.add(c);
            return c;
        }, status);
        BackendClient first = live.backendClient();
        for (int i = 0; i < 500 && first.isOpen(); i++) {
            Thread.sleep(10); // the reader sees the end of the output and closes the connection
        }
        assertFalse(first.isOpen(), "the first backend's connection closed");
        assertTrue(old.isAlive(), "its process still runs (the test's premise)");
        BackendClient second = live.backendClient();
        assertSame(made.get(1), second);
        assertFalse(oldAliveAtStart.get(1), "the second backend started after the first's process ended");
        live.flush();
        assertTrue(status.get().startsWith("waiting for the previous backend"), status.get());
        assertTrue(old.waitFor(0, TimeUnit.SECONDS));
        secondOut.close();
    }
}
