package org.tracewire.bench;

import java.nio.file.Path;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.openjdk.jmh.annotations.Benchmark;
import org.openjdk.jmh.annotations.BenchmarkMode;
import org.openjdk.jmh.annotations.Level;
import org.openjdk.jmh.annotations.Mode;
import org.openjdk.jmh.annotations.OutputTimeUnit;
import org.openjdk.jmh.annotations.Param;
import org.openjdk.jmh.annotations.Scope;
import org.openjdk.jmh.annotations.Setup;
import org.openjdk.jmh.annotations.State;
import org.openjdk.jmh.annotations.TearDown;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.store.StoreCache;

/**
 * The event table's "go to frame" over an opened file's store, GUI-free: {@link StoreTable#goToFrame}
 * of a random frame of the file (its row found, its page of 512 rows fetched from the store and
 * decoded from the file), what the table needs before it scrolls (issue 34's target: ≤ 100 ms).
 * Views: {@code frame} (unfiltered, frame order: the rows numbered by the store's frame order),
 * {@code time} (sorted by time: the frames of the view in a table of their own) and {@code filter}
 * ({@code common_pid != 0}, frame order). {@code rebuild} times building the view itself (the
 * sort or the filter over every event). The store comes from the user's store cache, as the app's
 * ({@code $XDG_CACHE_HOME/tracewire}; built on first use). Run:
 * {@code scripts/bench-jmh.sh -f 1 -wi 3 -i 5 -w 1 -r 1 StoreTable -p source=FILE.pcapng}.
 */
@State(Scope.Benchmark)
@BenchmarkMode(Mode.AverageTime)
@OutputTimeUnit(TimeUnit.MILLISECONDS)
public class StoreTableBenchmark {
    /** A pcapng of tracewire frames. */
    @Param({""})
    public String source;

    /** The view: frame, time or filter. */
    @Param({"frame", "time", "filter"})
    public String view;

    private StoreTable table;
    private final long[] frames = new long[64];
    private int next;

    /** Opens the store and sets the view. */
    @Setup(Level.Trial)
    public void setup() throws Exception {
        if (source.isEmpty()) {
            throw new IllegalArgumentException("give -p source=FILE.pcapng");
        }
        table = StoreTable.open(Path.of(source), StoreCache.ofUser(System.getenv()), n -> { }, Runnable::run,
                new DirectTaskExecutor());
        Random r = new Random(42);
        for (int i = 0; i < frames.length; i++) {
            frames[i] = 1 + (long) (r.nextDouble() * table.total());
        }
        apply();
    }

    private void apply() {
        table.clearFilters();
        table.sort(view.equals("time") ? StoreTable.Column.TIME : StoreTable.Column.FRAME, true);
        if (view.equals("filter")) {
            table.filterTextProperty().set("common_pid != 0");
        }
    }

    /** Closes the store. */
    @TearDown(Level.Trial)
    public void close() {
        table.close();
    }

    /** Go to a random frame: its row (or -1 when filtered out or no event). */
    @Benchmark
    public int goToFrame() {
        int[] row = {-2};
        table.goToFrame(frames[next++ & (frames.length - 1)], i -> row[0] = i);
        return row[0];
    }

    /** Builds the view again (the filter box or a sort changed): the rows it shows. */
    @Benchmark
    public long rebuild() {
        table.sort(view.equals("time") ? StoreTable.Column.TIME : StoreTable.Column.FRAME, (next++ & 1) == 0);
        return table.shownProperty().get();
    }
}
