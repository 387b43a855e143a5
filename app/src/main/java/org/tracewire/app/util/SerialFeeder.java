package org.tracewire.app.util;

import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Feeds batches to a non-thread-safe consumer in the background, in order, one run at a time,
 * through the {@link TaskExecutor}: batches given while a run is under way wait and go into the
 * next run. Each run's result comes back on the UI thread. Used from the UI thread only.
 *
 * @param <T> the batch element
 * @param <R> a run's result
 */
public final class SerialFeeder<T, R> {
    private final TaskExecutor executor;
    private final Supplier<Function<List<T>, R>> workOfRun;
    private final Consumer<R> done;
    private final Consumer<Throwable> failed;
    private List<T> waiting = new ArrayList<>();
    private boolean running;
    private long generation;

    /**
     * The consumer may depend on state the UI thread changes (the aggregate a changed spec replaces,
     * a tracker a clear empties): {@code workOfRun} is called on the UI thread as each run starts,
     * so the run works on what was current then, even when it starts on the background thread after
     * a {@link #reset} (a run of an older generation must not feed the newer state).
     *
     * @param executor  background work
     * @param workOfRun gives, on the UI thread, the consumer of the run about to start
     * @param done      receives a run's result (UI thread)
     * @param failed    receives a run's failure (UI thread)
     */
    public SerialFeeder(TaskExecutor executor, Supplier<Function<List<T>, R>> workOfRun, Consumer<R> done,
                        Consumer<Throwable> failed) {
        this.executor = executor;
        this.workOfRun = workOfRun;
        this.done = done;
        this.failed = failed;
    }

    /** @param batch elements to feed after those given before */
    public void feed(List<? extends T> batch) {
        waiting.addAll(batch);
        kick();
    }

    /** Drops what waits; results of a run under way are ignored. */
    public void reset() {
        waiting = new ArrayList<>();
        generation++;
    }

    private void kick() {
        if (running || waiting.isEmpty()) {
            return;
        }
        List<T> run = waiting;
        waiting = new ArrayList<>();
        running = true;
        long gen = generation;
        Function<List<T>, R> work = workOfRun.get();
        executor.execute(() -> work.apply(run), r -> {
            running = false;
            if (gen == generation) {
                done.accept(r);
            }
            kick();
        }, e -> {
            running = false;
            failed.accept(e);
            kick();
        });
    }
}
