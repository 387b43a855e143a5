package org.tracewire.app.util;

import java.util.concurrent.Callable;
import java.util.function.Consumer;

/** Runs everything at once on the calling thread: view-model tests and benchmarks without a JavaFX toolkit. */
public final class DirectTaskExecutor implements TaskExecutor {
    /** {@inheritDoc} */
    @Override
    public <T> void execute(Callable<T> work, Consumer<? super T> onSuccess, Consumer<? super Throwable> onFailure) {
        T result;
        try {
            result = work.call();
        } catch (Exception e) {
            onFailure.accept(e);
            return;
        }
        onSuccess.accept(result);
    }

    /** {@inheritDoc} */
    @Override
    public void runOnUi(Runnable action) {
        action.run();
    }

    /** {@inheritDoc} */
    @Override
    public void shutdown() {
    }
}
