package org.tracewire.app.util;

import java.util.concurrent.Callable;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.function.Consumer;
import javafx.application.Platform;

/** The app's {@link TaskExecutor}: a small pool of daemon threads, results via {@link Platform#runLater}. */
public final class FxTaskExecutor implements TaskExecutor {
    private final ExecutorService pool;

    /** Creates the pool (two background daemon threads named {@code tracewire-task-N}: {@link BackgroundThreads}). */
    public FxTaskExecutor() {
        pool = Executors.newFixedThreadPool(2, BackgroundThreads.factory("tracewire-task", true));
    }

    /** {@inheritDoc} */
    @Override
    public <T> void execute(Callable<T> work, Consumer<? super T> onSuccess, Consumer<? super Throwable> onFailure) {
        pool.execute(() -> {
            try {
                T result = work.call();
                Platform.runLater(() -> onSuccess.accept(result));
            } catch (Throwable e) {
                Platform.runLater(() -> onFailure.accept(e));
            }
        });
    }

    /** {@inheritDoc} */
    @Override
    public void runOnUi(Runnable action) {
        if (Platform.isFxApplicationThread()) {
            action.run();
        } else {
            Platform.runLater(action);
        }
    }

    /** {@inheritDoc} */
    @Override
    public void shutdown() {
        pool.shutdownNow();
    }
}
