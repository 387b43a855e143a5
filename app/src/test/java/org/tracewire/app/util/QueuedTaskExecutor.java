package org.tracewire.app.util;

import java.util.ArrayDeque;
import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * Holds background work until the test runs it ({@link #runAll}), on the calling thread, then its
 * callback: a background run that starts late, after the UI thread moved on. The UI thread is the
 * calling thread too.
 */
public final class QueuedTaskExecutor implements TaskExecutor {
    private final ArrayDeque<Runnable> queued = new ArrayDeque<>();
    private final DirectTaskExecutor direct = new DirectTaskExecutor();

    @Override
    public <T> void execute(Callable<T> work, Consumer<? super T> onSuccess, Consumer<? super Throwable> onFailure) {
        queued.add(() -> direct.execute(work, onSuccess, onFailure));
    }

    /** Runs the queued work in order, and whatever that queues, until none is left. */
    public void runAll() {
        while (!queued.isEmpty()) {
            queued.poll().run();
        }
    }

    @Override
    public void runOnUi(Runnable action) {
        action.run();
    }

    @Override
    public void shutdown() {
        queued.clear();
    }
}
