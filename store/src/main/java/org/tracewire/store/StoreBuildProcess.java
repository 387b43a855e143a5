package org.tracewire.store;

import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.CountDownLatch;
import java.util.function.Consumer;
import java.util.function.LongConsumer;
import java.util.stream.Stream;

/**
 * A finished file's store built in a JVM of its own (the app's; docs/decisions/0027): the child
 * runs {@link #buildIntoCache} (build when missing, evict; no views made) with the JVM options
 * of {@code sql} (C2 for the per-event build) while the app's JVM stays on C1, and its DuckDB's
 * memory is not the app's. The app then opens the finished store from the same {@link StoreCache}.
 *
 * <p>Protocol, one line each on the child's stdout: {@code counted N} (events stored so far, every
 * {@value StoreBuilder#PROGRESS_EVERY}), then {@code built N} (events in the store, which the
 * child has moved into place and closed: the parent may open it at once) or
 * {@code failed MESSAGE} (the build's refusal, as an in-process build throws it). The child's
 * stderr is the parent's. The child reads its stdin: at end of file (the parent closed it, or
 * exited in any way, killed included) it removes its half-built store and halts, so no child
 * outlives its parent nor leaves a file behind. A child {@linkplain #prepare prepared} starts its
 * JVM and loads DuckDB, then builds at the first line on its stdin ({@link #go()}).
 */
public final class StoreBuildProcess implements AutoCloseable {
    /** System property with the child's JVM options (the launcher's {@code sql_jvm_opts}, words separated by blanks). */
    public static final String JVM_OPTIONS_PROPERTY = "tracewire.storeJvmOpts";
    /** The child's options when the property is unset (the app started without the launcher: its tests). */
    static final List<String> DEFAULT_JVM_OPTIONS = List.of("-Xmx192m", "-XX:+UseSerialGC");
    /** Runs the child at a lower priority (coreutils' nice(1), which execs java: the pid is java's). */
    static final Path NICE = Path.of("/usr/bin/nice");
    /** The child's niceness: the app's threads get the CPU first when both want it (docs/decisions/0035). */
    static final int NICENESS = 10;
    /** The child's last argument when {@linkplain #prepare prepared}: build at the first line on stdin. */
    static final String ON_GO = "--on-go";

    private final Process process;
    private final Path store;

    private StoreBuildProcess(Process process, Path store) {
        this.process = process;
        this.store = store;
    }

    /**
     * Starts the child that builds {@code source}'s store into {@code cache}: the java binary of
     * this JVM, its class path, the options of {@link #JVM_OPTIONS_PROPERTY} (else
     * {@link #DEFAULT_JVM_OPTIONS}).
     *
     * @param source a finished pcapng of tracewire frames (or a trace.dat)
     * @param cache  the cache the caller then opens the store from
     * @return the running child; {@link #await} it, {@link #close} it to stop it
     * @throws IOException when the source cannot be read or the child not started
     */
    public static StoreBuildProcess start(Path source, StoreCache cache) throws IOException {
        return start(source, cache, false);
    }

    /**
     * Starts a child as {@link #start} does that gets ready (its JVM started, DuckDB's library
     * loaded) and builds only at {@link #go()}: started while the app starts, its start-up is not
     * on the way to the store (docs/decisions/0035).
     *
     * @throws IOException when the source cannot be read or the child not started
     */
    public static StoreBuildProcess prepare(Path source, StoreCache cache) throws IOException {
        return start(source, cache, true);
    }

    private static StoreBuildProcess start(Path source, StoreCache cache, boolean onGo) throws IOException {
        Path store = cache.storeFor(source);
        List<String> cmd = new ArrayList<>(command(source, cache));
        if (onGo) {
            cmd.add(ON_GO);
        }
        Process p = new ProcessBuilder(cmd).redirectError(ProcessBuilder.Redirect.INHERIT).start();
        return new StoreBuildProcess(p, store);
    }

    /**
     * Lets a {@linkplain #prepare prepared} child build (nothing for one {@link #start}ed).
     *
     * @throws IOException when the child is gone (its {@link #await} then says why)
     */
    public void go() throws IOException {
        var in = process.getOutputStream();
        in.write('\n');
        in.flush();
    }

    /**
     * The child's command line: {@link #NICE} when there is one, this JVM's java binary and class
     * path, {@link #jvmOptions()}, {@link #main}'s arguments.
     */
    static List<String> command(Path source, StoreCache cache) {
        String java = ProcessHandle.current().info().command()
                .orElse(Path.of(System.getProperty("java.home"), "bin", "java").toString());
        List<String> cmd = new ArrayList<>();
        if (Files.isExecutable(NICE)) { // the app's window and rows first, the build on the rest of the CPU
            cmd.addAll(List.of(NICE.toString(), "-n", Integer.toString(NICENESS)));
        }
        cmd.add(java);
        cmd.addAll(jvmOptions());
        cmd.addAll(List.of("-cp", System.getProperty("java.class.path"), StoreBuildProcess.class.getName(),
                cache.dir().toString(), Long.toString(cache.maxBytes()), source.toString()));
        return cmd;
    }

    /** The child's JVM options: {@link #JVM_OPTIONS_PROPERTY}'s words, else {@link #DEFAULT_JVM_OPTIONS}. */
    static List<String> jvmOptions() {
        String v = System.getProperty(JVM_OPTIONS_PROPERTY, "").strip();
        return v.isEmpty() ? DEFAULT_JVM_OPTIONS : List.of(v.split("\\s+"));
    }

    /** True while the child runs. */
    public boolean isAlive() {
        return process.isAlive();
    }

    /** The child's process id. */
    public long pid() {
        return process.pid();
    }

    /**
     * Waits for the child's result, passing on its progress: its {@code built} line (the store in
     * place and closed by the child, whose exit, ~0.3 s of JVM shutdown, is not waited for), else
     * its end.
     *
     * @param counted hears the events stored so far (this thread; may be null)
     * @return the events in the store
     * @throws IOException when the build failed (the child's message), or the child ended without
     *                     a result (killed, crashed, {@link #close}d: its exit status)
     * @throws InterruptedException when this thread is interrupted (the child is then stopped)
     */
    public long await(LongConsumer counted) throws IOException, InterruptedException {
        String failed = null;
        try (BufferedReader out = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
            for (String line; (line = out.readLine()) != null; ) {
                if (line.startsWith("counted ") && counted != null) {
                    counted.accept(Long.parseLong(line.substring(8)));
                } else if (line.startsWith("built ")) {
                    return Long.parseLong(line.substring(6));
                } else if (line.startsWith("failed ")) {
                    failed = line.substring(7);
                }
            }
        } catch (IOException e) {
            // the pipe closed under us (close()): the exit status says what happened
        }
        try {
            int code = process.waitFor();
            if (failed != null) {
                throw new IOException(failed);
            }
            throw new IOException("the store's build process ended without a store (exit status " + code
                    + (code > 128 ? ", signal " + (code - 128) : "") + ")");
        } finally {
            removePartial(store, process.pid());
        }
    }

    /**
     * Stops the child (no wait): its stdin closed (it removes its half-built store and halts), then
     * SIGTERM; a child that has ended is left as it is.
     */
    @Override
    public void close() {
        try {
            process.getOutputStream().close();
        } catch (IOException e) {
            // already closed
        }
        process.destroy();
    }

    /** Removes what a build by process {@code pid} leaves when stopped: its temporary store, WAL and spill folder. */
    static void removePartial(Path store, long pid) {
        Path tmp = StoreFiles.temporary(store, pid);
        for (Path p : List.of(tmp, tmp.resolveSibling(tmp.getFileName() + ".wal"), tmp.resolveSibling(tmp.getFileName() + ".tmp"))) {
            try (Stream<Path> s = Files.isDirectory(p) ? Files.walk(p) : Stream.of(p)) {
                for (Path f : (Iterable<Path>) s.sorted(Comparator.reverseOrder())::iterator) {
                    Files.deleteIfExists(f);
                }
            } catch (IOException e) {
                // gone meanwhile, or not ours to remove: the cache is the user's
            }
        }
    }

    /**
     * The child: {@code CACHE_DIR MAX_BYTES SOURCE [--on-go]}; prints the protocol's lines; exit
     * status 0 when the store was built (or reused), 1 when refused, 2 on wrong arguments.
     */
    public static void main(String[] args) {
        PrintStream out = new PrintStream(System.out, false, StandardCharsets.UTF_8);
        if (args.length != 3 && !(args.length == 4 && args[3].equals(ON_GO))) {
            System.err.println("usage: StoreBuildProcess CACHE_DIR MAX_BYTES SOURCE [" + ON_GO + "]");
            System.exit(2);
        }
        StoreCache cache = new StoreCache(Path.of(args[0]), Long.parseLong(args[1]));
        Path source = Path.of(args[2]);
        CountDownLatch go = new CountDownLatch(args.length == 4 ? 1 : 0);
        watchParent(source, cache, go);
        if (go.getCount() > 0) {
            getReady();
            awaitUninterruptibly(go);
        }
        LongConsumer counted = n -> {
            out.println("counted " + n);
            out.flush();
        };
        long events;
        try {
            events = buildIntoCache(source, cache, counted);
        } catch (Exception | LinkageError e) {
            out.println("failed " + rootMessage(e).replace('\n', ' '));
            out.flush();
            System.exit(1);
            return;
        }
        out.println("built " + events); // the store closed first: the parent opens it at this line
        out.flush();
        System.exit(0);
    }

    /**
     * Builds a finished file's store into the cache unless it is there, then evicts as
     * {@link CaptureStore#open(List, StoreCache, Consumer)} does, without opening it for queries
     * (no views made: the child's work, docs/decisions/0035).
     *
     * @param file    a finished pcapng of tracewire frames, or a trace.dat
     * @param cache   where the store goes
     * @param counted receives the events stored so far (this thread; may be null)
     * @return the events in the store
     * @throws IOException  when the file cannot be read, or the cache not written
     * @throws SQLException when DuckDB fails
     */
    static long buildIntoCache(Path file, StoreCache cache, LongConsumer counted) throws IOException, SQLException {
        Path store = cache.storeFor(file);
        if (Files.isRegularFile(store)) { // built meanwhile: its count from the store itself
            try (CaptureStore cs = CaptureStore.open(List.of(file), cache, null, false, counted)) {
                return cs.sources().get(0).events();
            }
        }
        long events = StoreFiles.build(StoreFiles.opener(file), file, store, counted).events();
        cache.evict(List.of(store));
        return events;
    }

    /**
     * Loads DuckDB's driver and maps its native library (~70 MB), so that a later connection opens
     * at once: a prepared child's start-up before its go, and the app's while its child builds.
     *
     * @throws SQLException when DuckDB cannot open an in-memory database
     */
    public static void loadDriver() throws SQLException {
        DriverManager.getConnection("jdbc:duckdb:").close();
    }

    /** A prepared child's start-up before its go: {@link #loadDriver()} (its failure is the build's to say). */
    private static void getReady() {
        try {
            loadDriver();
        } catch (SQLException | RuntimeException | LinkageError e) {
            // the build opens DuckDB again and says why it cannot
        }
    }

    private static void awaitUninterruptibly(CountDownLatch latch) {
        while (true) {
            try {
                latch.await();
                return;
            } catch (InterruptedException e) {
                // nothing interrupts the child's main thread; wait on
            }
        }
    }

    /**
     * Halts once stdin ends (the parent gone or stopping us), the half-built store removed first;
     * a line on stdin counts {@code go} down.
     */
    private static void watchParent(Path source, StoreCache cache, CountDownLatch go) {
        Thread t = new Thread(() -> {
            try {
                for (int b; (b = System.in.read()) >= 0; ) {
                    if (b == '\n') { // the parent's go (a line); end of file is the other message
                        go.countDown();
                    }
                }
            } catch (IOException e) {
                // closed: the same
            }
            try {
                removePartial(cache.storeFor(source), ProcessHandle.current().pid());
            } catch (IOException e) {
                // the source is gone: nothing was built under its name
            }
            Runtime.getRuntime().halt(3);
        }, "parent-watch");
        t.setDaemon(true);
        t.start();
    }

    private static String rootMessage(Throwable e) {
        Throwable t = e;
        while (t.getCause() != null && t.getCause() != t) {
            t = t.getCause();
        }
        return Optional.ofNullable(t.getMessage()).orElse(t.toString());
    }
}
