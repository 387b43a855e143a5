package org.tracewire.app.util;

import java.util.concurrent.Callable;
import java.util.function.Consumer;

/**
 * The one way view models run background work: {@code work} runs off the JavaFX thread, its result
 * (or failure) is handed to the callbacks on the UI thread. Tests use a direct executor (test sources).
 */
public interface TaskExecutor {
    /**
     * Runs {@code work} in the background, then {@code onSuccess} or {@code onFailure} on the UI thread.
     *
     * @param work      the background computation
     * @param onSuccess receives the result on the UI thread
     * @param onFailure receives the exception on the UI thread
     * @param <T>       the result type
     */
    <T> void execute(Callable<T> work, Consumer<? super T> onSuccess, Consumer<? super Throwable> onFailure);

    /** Runs {@code action} on the UI thread (later, or now when already on it). */
    void runOnUi(Runnable action);

    /** Stops the background threads; queued work is dropped. */
    void shutdown();
}
