package org.tracewire.app.capture;

/** The status bar's texts for a capture: the backend's state and the count of events. */
public final class CaptureStatusText {
    private CaptureStatusText() {
    }

    /**
     * The backend's state.
     *
     * @param opening a file is being read
     * @param busy    a start or stop is under way
     * @param running capturing
     * @param backend a backend process is running
     * @return "reading a file", "starting the backend…", "starting the capture…", "stopping…",
     *         "capturing", "backend idle" or "no backend"
     */
    public static String backendState(boolean opening, boolean busy, boolean running, boolean backend) {
        if (opening) {
            return "reading a file";
        }
        if (busy) {
            return running ? "stopping…" : backend ? "starting the capture…" : "starting the backend…";
        }
        if (running) {
            return "capturing";
        }
        return backend ? "backend idle" : "no backend";
    }

    /**
     * The event count: while a live capture's file is indexed, {@code "live: N events in the store,
     * R read from the file; kernel: K read, L lost"}; the store's total once it is ready ({@code "N
     * events"}); while an opened file's store is built, {@code "indexing… I events"}; while a file
     * is read, {@code "reading… R events so far"}.
     *
     * @param following  a live capture's file is read as it grows
     * @param opening    an opened file is being read
     * @param storeTotal events of the capture's store table, -1 when there is none
     * @param indexed    events stored so far while a store is built, -1 when none is built
     * @param inStore    a live capture's events committed to its store
     * @param received   events read from the capture's file
     * @param events     the capture's events (an opened file's rows, the kernel's count live)
     * @param lost       events the kernel lost in a live capture
     * @return the text
     */
    static String events(boolean following, boolean opening, long storeTotal, long indexed, long inStore,
                         long received, long events, long lost) {
        if (following) {
            return String.format("live: %,d events in the store, %,d read from the file; kernel: %,d read, %,d lost",
                    inStore, received, events, lost);
        }
        if (storeTotal >= 0) {
            return String.format("%,d events", storeTotal);
        }
        if (indexed >= 0) {
            return String.format("indexing… %,d events", indexed)
                    + (opening ? String.format("; reading… %,d so far", received) : "");
        }
        return opening ? String.format("reading… %,d events so far", received) : String.format("%,d events", events);
    }
}
