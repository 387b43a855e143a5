package org.tracewire.app.capture;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.time.Duration;
import java.time.LocalDateTime;
import java.time.format.DateTimeFormatter;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.beans.property.BooleanProperty;
import javafx.beans.property.LongProperty;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleBooleanProperty;
import javafx.beans.property.SimpleLongProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.protocol.BackendClient;
import org.tracewire.protocol.BackendListener;
import org.tracewire.protocol.Messages;
import org.tracewire.store.StoreCache;

/**
 * A live capture through the backend ({@link BackendClient}): start, stop and the kernel's
 * counters. The backend writes the capture into a pcapng (the user's file, else a new one under
 * the user's cache, {@link #newCacheFile}), created and checked as the invoking user; the app
 * reads that file as it grows, the same way it reads an opened file ({@link CaptureViewModel}).
 * No events are streamed to the app.
 *
 * <p>Threads: the backend's replies and pushed counters arrive on its reader thread and wait in
 * atomic slots; {@link #flush()} (UI thread, once per pulse) moves them into the properties.
 */
public final class LiveCapture {
    private final TaskExecutor executor;
    private final Supplier<BackendClient> backend;
    private final StringProperty status;
    private final BooleanProperty running = new SimpleBooleanProperty();
    private final BooleanProperty busy = new SimpleBooleanProperty();
    private final LongProperty eventCount = new SimpleLongProperty();
    private final LongProperty lost = new SimpleLongProperty();
    private final LongProperty frames = new SimpleLongProperty();
    private final LongProperty bytes = new SimpleLongProperty();
    private final StringProperty rate = new SimpleStringProperty("0");
    private final ObjectProperty<Messages.Stats> stats =
            new SimpleObjectProperty<>(Messages.Stats.ZERO);
    private final AtomicReference<Messages.Stats> pendingStats = new AtomicReference<>();
    private final AtomicReference<String> pendingStatus = new AtomicReference<>();
    private BackendClient client;
    /** True from a start request until the backend has stopped writing the capture's file. */
    private volatile boolean writing;
    private volatile boolean startCancelled;
    /** How long a start waits for the backend's answer before the app gives up on it. */
    private volatile Duration startTimeout = Duration.ofSeconds(60);

    private final BackendListener listener = new BackendListener() {
        @Override
        public void onStats(Messages.Stats stats) {
            pendingStats.set(stats);
        }

        @Override
        public void onError(String message) {
            pendingStatus.set("backend: " + message);
        }

        @Override
        public void onClosed(String reason) {
            writing = false;
            pendingStatus.set("backend stopped: " + reason);
        }
    };

    /**
     * @param executor runs backend calls in the background
     * @param backend  starts (or returns) the backend; may throw a BackendException naming the problem
     * @param status   the capture view's one-line status, written on the UI thread
     */
    public LiveCapture(TaskExecutor executor, Supplier<BackendClient> backend, StringProperty status) {
        this.executor = executor;
        this.backend = backend;
        this.status = status;
    }

    /**
     * The backend: the open one, or a new one started through the supplier (which may ask for
     * privilege). Call off the JavaFX thread.
     */
    public synchronized BackendClient backendClient() {
        if (client != null && !client.isOpen()) {
            awaitPreviousExit(client);
        }
        BackendClient c = client != null && client.isOpen() ? client : backend.get();
        c.removeListener(listener);
        c.addListener(listener);
        client = c;
        return c;
    }

    /** How long a new backend waits for the previous one's process to end. */
    static final Duration PREVIOUS_EXIT = Duration.ofSeconds(10);

    /**
     * Before a new backend starts: the previous one, whose connection closed, may still hold its
     * TAP interface (tw0) and tracefs instance until its process ends; the new one would then fail
     * to create them. Waits (bounded) and says so in the status.
     */
    private void awaitPreviousExit(BackendClient old) {
        if (old.exited()) {
            return;
        }
        pendingStatus.set("waiting for the previous backend to exit (it still holds its interface)…");
        try {
            if (!old.awaitExit(PREVIOUS_EXIT)) {
                pendingStatus.set("the previous backend has not exited after " + PREVIOUS_EXIT.toSeconds()
                        + " s; starting a new one");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** True when a backend is running. */
    public synchronized boolean hasBackend() {
        return client != null && client.isOpen();
    }

    /** The live folder's default bound, bytes ({@code TRACEWIRE_LIVE_CACHE_MIB} sets another). */
    public static final long LIVE_CACHE_BYTES = 8L << 30;
    /** A live file modified this recently is never evicted (another app's capture may still write it). */
    static final long EVICT_AFTER_MS = 60_000;

    /**
     * The bound on the live folder's captures: {@code TRACEWIRE_LIVE_CACHE_MIB} MiB when set (digits),
     * else {@link #LIVE_CACHE_BYTES}.
     *
     * @param env the environment
     * @return bytes
     */
    public static long liveCacheBytes(Map<String, String> env) {
        String mib = env.get("TRACEWIRE_LIVE_CACHE_MIB");
        return mib != null && mib.matches("[0-9]{1,9}") ? Long.parseLong(mib) << 20 : LIVE_CACHE_BYTES;
    }

    /**
     * A new pcapng path for a capture the user gave no file for:
     * {@code CACHE/live/capture-YYYYMMDD-HHMMSS[-N].pcapng}, the folder made (mode 0700) when
     * missing. The file itself is created by the backend, as the user. The folder's earlier
     * captures are evicted first ({@link #evictLive}).
     *
     * @param cache    the user's tracewire cache folder ({@code $XDG_CACHE_HOME/tracewire})
     * @param maxBytes the bound on the earlier captures kept there ({@link #liveCacheBytes})
     * @return an absolute path that does not exist yet
     * @throws IOException when the folder cannot be made
     */
    public static Path newCacheFile(Path cache, long maxBytes) throws IOException {
        Path dir = cache.toAbsolutePath().resolve("live");
        if (!Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        evictLive(dir, maxBytes, System.currentTimeMillis());
        String stamp = LocalDateTime.now().format(DateTimeFormatter.ofPattern("yyyyMMdd-HHmmss"));
        Path file = dir.resolve("capture-" + stamp + ".pcapng");
        for (int n = 2; Files.exists(file, LinkOption.NOFOLLOW_LINKS); n++) {
            file = dir.resolve("capture-" + stamp + "-" + n + ".pcapng");
        }
        return file;
    }

    /**
     * Bounds the app's live captures as the store cache bounds its stores
     * (one loop, {@link StoreCache#evictOldest}): the least recently modified {@code capture-*.pcapng} of the live
     * folder are deleted until those left total at most {@code maxBytes}. Only regular files of
     * that name (links are not followed), never one modified in the last minute (a capture may
     * still write it) nor one with a spool beside it ({@code FILE.tw-spool}: a killed capture,
     * for {@code tracewire recover}). Files of other names, such as a user's own {@code -w} file,
     * are never touched.
     *
     * @param dir      the live folder ({@code CACHE/live})
     * @param maxBytes the bound, bytes
     * @param nowMs    the time now, ms since the epoch
     * @return the files deleted, oldest first
     * @throws IOException when the folder cannot be listed
     */
    public static List<Path> evictLive(Path dir, long maxBytes, long nowMs) throws IOException {
        return StoreCache.evictOldest(dir, "capture-*.pcapng", maxBytes, f -> nowMs - f.modifiedMs() < EVICT_AFTER_MS
                || Files.exists(f.path().resolveSibling(f.path().getFileName() + ".tw-spool"), LinkOption.NOFOLLOW_LINKS));
    }

    /**
     * True while the backend may still write the current capture's file: from the start request
     * until its final counters came (the file is then complete) or the backend went away. The
     * readers of the growing file end once this is false and the file is read to its end.
     */
    public boolean writing() {
        return writing;
    }

    /**
     * Starts a capture in the background.
     *
     * @param req     what to capture; its {@code pcapng} is the file the backend writes
     * @param started called on the UI thread once the capture runs, with the file written
     * @param stopped as {@link #stop}'s, when a cancelled start stops the capture at once
     */
    public void start(Messages.CaptureRequest req, Consumer<Path> started, Consumer<Messages.Stats> stopped) {
        if (running.get() || busy.get()) {
            return;
        }
        busy.set(true);
        startCancelled = false;
        writing = true;
        status.set("starting the backend…");
        eventCount.set(0);
        lost.set(0);
        frames.set(0);
        bytes.set(0);
        rate.set("0");
        stats.set(Messages.Stats.ZERO);
        pendingStats.set(null);
        Duration timeout = startTimeout;
        executor.execute(() -> backendClient().startCapture(req, timeout).get(), s -> {
            busy.set(false);
            running.set(true);
            String written = s.pcapng() != null && !s.pcapng().isBlank() ? s.pcapng() : req.pcapng();
            boolean cancelled = startCancelled;
            startCancelled = false;
            status.set(cancelled ? "cancelled: stopping the capture" : "capturing"
                    + (s.iface() != null ? " on " + s.iface() : "") + " into " + written
                    + (s.instance() != null ? " (instance " + s.instance() + ")" : ""));
            started.accept(Path.of(written));
            if (cancelled) {
                stop(stopped);
            }
        }, e -> {
            writing = false;
            busy.set(false);
            status.set("cannot start: " + rootMessage(e));
            stopAbandoned();
        });
    }

    /**
     * The app gave up on a start (no answer in time, or an error): should the backend start that
     * capture after all, it is stopped. The backend handles one command after another, so a stop
     * sent now comes after the start; with no capture running it stops nothing.
     */
    private void stopAbandoned() {
        BackendClient c;
        synchronized (this) {
            c = client;
        }
        if (c != null && c.isOpen()) {
            c.stopCapture().exceptionally(x -> null); // nothing to tell: the start has failed already
        }
    }

    /**
     * How long a start waits for the backend's answer (60 s by default) before the app gives up on
     * it and stops the capture should the backend start it late.
     *
     * @param timeout the wait
     */
    void setStartTimeout(Duration timeout) {
        this.startTimeout = timeout;
    }

    /**
     * Stops the capture in the background; the final counters replace the live ones. Waits for them
     * as long as the backend lives (it frames its read-ahead first); says so in the status meanwhile.
     *
     * @param stopped called on the UI thread with the final counters
     */
    public void stop(Consumer<Messages.Stats> stopped) {
        BackendClient c = client;
        if (!running.get() || c == null) {
            return;
        }
        busy.set(true);
        // the backend answers once it has written every event it read (BackendClient.stopCapture):
        // on a busy machine minutes after tracing stopped, so no time limit while it lives
        status.set("stopping: tracing off, the backend writes the events it has read to the file…");
        executor.execute(() -> c.stopCapture().get(), stats -> {
            writing = false;
            pendingStats.set(stats);
            flush();
            busy.set(false);
            running.set(false);
            stopped.accept(stats);
        }, e -> {
            writing = false;
            busy.set(false);
            running.set(false);
            status.set("stop failed: " + rootMessage(e));
        });
    }

    /** Cancels a start waiting for the backend: the capture is stopped as soon as it has started. */
    public void cancelStart() {
        if (busy.get() && !running.get()) {
            startCancelled = true;
            status.set("cancelling: the capture stops as soon as the backend answers…");
        }
    }

    /** Moves pushed counters and status into the properties: call once per UI pulse. */
    public void flush() {
        Messages.Stats s = pendingStats.getAndSet(null);
        if (s != null) {
            stats.set(s);
            eventCount.set(s.events());
            rate.set(String.format("%,.0f", s.eventsPerSecond()));
            frames.set(s.frames());
            bytes.set(s.bytes());
            lost.set(lostOf(s));
        }
        String st = pendingStatus.getAndSet(null);
        if (st != null) {
            status.set(st);
            if (st.startsWith("backend stopped")) {
                running.set(false);
            }
        }
    }

    /** Events the kernel lost in a capture (summed over its CPUs). */
    static long lostOf(Messages.Stats s) {
        return s.cpus() == null ? 0 : s.cpus().stream().mapToLong(Messages.CpuStat::lostKnown).sum();
    }

    /** True while capturing. */
    public BooleanProperty runningProperty() {
        return running;
    }

    /** True while a start or stop is under way. */
    public BooleanProperty busyProperty() {
        return busy;
    }

    /** The backend's latest counters (the final ones once the capture stopped). */
    public ObjectProperty<Messages.Stats> statsProperty() {
        return stats;
    }

    /** Events the backend read from the kernel (its {@code stats.events}). */
    public LongProperty eventCountProperty() {
        return eventCount;
    }

    /** Events the kernel lost (its per-CPU counts, summed). */
    public LongProperty lostProperty() {
        return lost;
    }

    /** Frames written. */
    public LongProperty framesProperty() {
        return frames;
    }

    /** Bytes written. */
    public LongProperty bytesProperty() {
        return bytes;
    }

    /** Events per second, formatted. */
    public StringProperty rateProperty() {
        return rate;
    }

    /** Closes the backend, which stops a running capture (app exit). */
    public void shutdown() {
        BackendClient c = client;
        if (c != null) {
            c.close();
        }
    }

    static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return t.getMessage() != null ? t.getMessage() : t.toString();
    }
}
