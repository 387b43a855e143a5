package org.tracewire.app.capture;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.zip.GZIPInputStream;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.store.StoreCache;

/**
 * The checked-in real capture with stacks ({@code org/tracewire/app/stats/sched-syscalls-stacks.pcapng.gz}:
 * sched, raw syscalls, openat and wakeups with kernel stacks, softirqs), unpacked into a directory,
 * its store table opened with every query run on the calling thread, and every event of it as
 * {@link PcapngInput} reads them (the independent side of the tests).
 */
public final class StoreFixture implements AutoCloseable {
    /** The fixture's resource. */
    public static final String RESOURCE = "/org/tracewire/app/stats/sched-syscalls-stacks.pcapng.gz";
    private final Path file;
    private final StoreTable table;

    private StoreFixture(Path file, StoreTable table) {
        this.file = file;
        this.table = table;
    }

    /**
     * Unpacks the fixture into {@code dir} and opens its store (built into {@code dir/cache}).
     *
     * @param dir a temporary directory
     * @return the fixture
     * @throws Exception when it cannot be read or stored
     */
    public static StoreFixture open(Path dir) throws Exception {
        Path file = dir.resolve("sched-syscalls-stacks.pcapng");
        try (InputStream in = new GZIPInputStream(StoreFixture.class.getResourceAsStream(RESOURCE))) {
            Files.copy(in, file);
        }
        StoreTable t = StoreTable.open(file, new StoreCache(dir.resolve("cache"), 1L << 30), n -> { }, Runnable::run,
                new DirectTaskExecutor());
        return new StoreFixture(file, t);
    }

    /** The unpacked pcapng. */
    public Path file() {
        return file;
    }

    /** Its store table (queries on the calling thread). */
    public StoreTable table() {
        return table;
    }

    /** Every event of the file as {@link PcapngInput} reads it, in file order. */
    public List<RecordInput.Event> events() {
        List<RecordInput.Event> out = new ArrayList<>();
        try (PcapngInput in = PcapngInput.open(file)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                out.add(it.next());
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out;
    }

    @Override
    public void close() {
        table.close();
    }
}
