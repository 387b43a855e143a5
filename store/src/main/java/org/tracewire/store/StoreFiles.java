package org.tracewire.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.function.LongConsumer;
import org.duckdb.DuckDBConnection;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.tracedat.TraceDatException;

/**
 * The build of one source's store file for {@link CaptureStore}: the input it reads (a pcapng in
 * one pass, else a trace.dat through {@link RecordInput}) and the DuckDB file written under a
 * temporary name, then moved into place, so a reader never sees a half-built store.
 */
final class StoreFiles {
    private StoreFiles() {
    }

    /**
     * The input a build of a finished file reads. A pcapng is read in one pass, its context learnt
     * as it comes (a capture sends it before the events that need it, docs/wire-format.md §6): the
     * reader's context pass would read the whole file once more (docs/decisions/0022). A file that
     * turns out to hold no tracewire capture is refused as {@link PcapngInput#open} refuses it.
     */
    static Opener opener(Path source) {
        return () -> {
            try {
                if (Files.isRegularFile(source) && isPcapng(source)) {
                    return PcapngInput.follow(source.toRealPath(), () -> false);
                }
                return RecordInput.open(source, null);
            } catch (TraceDatException e) {
                // a trace.dat whose headers do not parse: refused, with the reader's words (offset included)
                throw new IOException(source + ": " + e.getMessage(), e);
            }
        };
    }

    /** Opens the input a build reads. */
    @FunctionalInterface
    interface Opener {
        RecordInput open() throws IOException;
    }

    /** Whether {@code f} starts with a pcapng Section Header Block's magic. */
    static boolean isPcapng(Path f) throws IOException {
        try (var in = Files.newInputStream(f)) {
            return PcapngInput.hasMagic(in.readNBytes(4));
        }
    }

    /** Where process {@code pid} writes {@code store} while it builds it ({@code store.tmp-PID}; DuckDB adds {@code .wal}). */
    static Path temporary(Path store, long pid) {
        return store.resolveSibling(store.getFileName() + ".tmp-" + pid);
    }

    /**
     * Builds the store of {@code source}, read through {@code opener}, into {@code store}: written
     * as {@code store.tmp-PID} (DuckDB memory {@link CaptureStore#BUILD_MEMORY_MIB} MiB, one
     * thread), checkpointed, then moved into place atomically; the directory is made {@code rwx------}
     * when missing. {@code counted} (may be null) hears the events stored so far.
     *
     * @throws IOException  when the source cannot be read, or holds no tracewire capture context
     * @throws SQLException when DuckDB fails (the temporary file is removed)
     */
    static StoreBuilder.Result build(Opener opener, Path source, Path store, LongConsumer counted)
            throws IOException, SQLException {
        Path dir = store.getParent();
        if (dir != null && !Files.isDirectory(dir)) {
            Files.createDirectories(dir, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwx------")));
        }
        Path tmp = temporary(store, ProcessHandle.current().pid());
        Files.deleteIfExists(tmp);
        StoreBuilder.Result r;
        try (RecordInput in = opener.open();
             DuckDBConnection c = (DuckDBConnection) DriverManager.getConnection("jdbc:duckdb:" + tmp)) {
            try (Statement s = c.createStatement()) {
                // DuckDB's buffer pool; what does not fit goes to its temporary files (the RSS bound of a build)
                s.execute("SET memory_limit = '" + CaptureStore.BUILD_MEMORY_MIB + "MB'");
                // each batch's INSERT runs on the thread that executes it alone (the build's
                // inserter: its table function hands over rows from there), not handed to DuckDB's
                // workers and back (docs/decisions/0018, 0029)
                s.execute("SET threads = 1");
                // the buffer pool's blocks kept, not handed back to the OS at each eviction and
                // faulted in again (~115 K page faults of 275 K); RLE not tried on each column
                // segment (~4% of the inserter's CPU, the store 2% larger): docs/decisions/0036
                s.execute("SET block_allocator_memory = '" + CaptureStore.BUILD_MEMORY_MIB + "MB'");
                s.execute("SET disabled_compression_methods = 'rle'");
            }
            BuildTiming timing = BuildTiming.start();
            r = StoreBuilder.build(in, c, source.toAbsolutePath().toString(), counted);
            timing.report("commit", r.events());
            if (in instanceof PcapngInput p && p.captureScopes().isEmpty()) {
                PcapngInput.open(source).close(); // throws the reader's own refusal (no tracewire context)
                throw new IOException(source + ": no tracewire capture context (CAPTURE frame) in the file");
            }
            try (Statement s = c.createStatement()) {
                s.execute("CHECKPOINT");
            }
            timing.report("checkpoint", r.events());
        } catch (IOException | SQLException | RuntimeException e) {
            Files.deleteIfExists(tmp);
            Files.deleteIfExists(tmp.resolveSibling(tmp.getFileName() + ".wal"));
            throw e;
        }
        Files.move(tmp, store, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
        return r;
    }
}
