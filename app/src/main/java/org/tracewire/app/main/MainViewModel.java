package org.tracewire.app.main;

import java.io.IOException;
import java.nio.ByteOrder;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.function.Consumer;
import java.util.function.Supplier;
import javafx.beans.binding.Bindings;
import javafx.beans.property.ObjectProperty;
import javafx.beans.property.SimpleObjectProperty;
import javafx.beans.property.SimpleStringProperty;
import javafx.beans.property.StringProperty;
import javafx.beans.value.ChangeListener;
import javafx.beans.value.ObservableValue;
import javafx.collections.FXCollections;
import javafx.collections.ObservableList;
import org.tracewire.app.browser.BrowserViewModel;
import org.tracewire.app.capture.CaptureViewModel;
import org.tracewire.app.capture.RowRecords;
import org.tracewire.app.capture.StoreTable;
import org.tracewire.app.filter.FilterBuilderViewModel;
import org.tracewire.app.histogram.HistogramViewModel;
import org.tracewire.app.iograph.IoGraphViewModel;
import org.tracewire.app.latency.LatencyViewModel;
import org.tracewire.app.query.QueryViewModel;
import org.tracewire.app.session.Session;
import org.tracewire.app.session.SessionStore;
import org.tracewire.app.timeline.TimelineViewModel;
import org.tracewire.app.util.BackgroundThreads;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.app.wireshark.WiresharkViewModel;
import org.tracewire.protocol.BackendClient;
import org.tracewire.protocol.Messages;
import org.tracewire.tracefs.EventSelection;

/**
 * The app's top-level state: the view models of every view, the session store, the recent
 * sessions on the start page, and the glue between views (browser selection → filter builder →
 * capture list; capture outputs → Wireshark).
 */
public final class MainViewModel {
    private final TaskExecutor executor;
    private final SessionStore store;
    private final BrowserViewModel browser;
    private final FilterBuilderViewModel filter;
    private final CaptureViewModel capture;
    private final WiresharkViewModel wireshark;
    private final RowRecords rowRecords;
    private final LatencyViewModel latency;
    private final HistogramViewModel histogram;
    private final TimelineViewModel timeline = new TimelineViewModel();
    private final QueryViewModel query;
    private final IoGraphViewModel ioGraph;
    private final ObservableList<Path> recent = FXCollections.observableArrayList();
    private final StringProperty message = new SimpleStringProperty("");
    private final StringProperty sessionFile = new SimpleStringProperty("");
    private final StringProperty title = new SimpleStringProperty("tracewire");
    private final ObjectProperty<Notice> notice = new SimpleObjectProperty<>();
    private long noticeSeq;

    /**
     * A short notification the main window shows for a few seconds (a label over its views, {@code MainView}).
     *
     * @param seq     increases with every notice (the same text twice is two notices)
     * @param text    what happened
     * @param warning true to show it as a warning (events lost, a failure)
     */
    public record Notice(long seq, String text, boolean warning) {
    }

    /**
     * @param executor  background work
     * @param store     sessions and app state
     * @param byteOrder the traced kernel's byte order, for the filter builder's BPF
     * @param backend   starts the privileged backend on first use
     * @param starter   starts Wireshark
     * @param env       the environment
     */
    public MainViewModel(TaskExecutor executor, SessionStore store, Supplier<ByteOrder> byteOrder,
                         Supplier<BackendClient> backend, WiresharkViewModel.ProcessStarter starter, Map<String, String> env) {
        this.executor = executor;
        this.store = store;
        this.browser = new BrowserViewModel(executor);
        this.filter = new FilterBuilderViewModel(byteOrder);
        this.capture = new CaptureViewModel(executor, backend);
        this.wireshark = new WiresharkViewModel(executor, starter, env);
        this.rowRecords = new RowRecords(RowRecords.formatsOf(browser::tracefs));
        capture.setRecords(rowRecords);
        title.bind(Bindings.createStringBinding(() -> {
            String f = capture.sourceFileProperty().get();
            return f == null || f.isEmpty() ? "tracewire" : Path.of(f).getFileName() + " — tracewire";
        }, capture.sourceFileProperty()));
        timeline.connect(capture);
        this.latency = new LatencyViewModel(executor);
        latency.connect(capture);
        this.histogram = new HistogramViewModel(executor, rowRecords);
        histogram.connect(capture);
        // SQL over an opened file's store: each view on a daemon thread with a connection of its own
        this.query = new QueryViewModel(executor, BackgroundThreads.single("tracewire-query"), store);
        query.connect(capture.viewStoreProperty());
        this.ioGraph = new IoGraphViewModel(executor, BackgroundThreads.single("tracewire-iograph"));
        ioGraph.connect(capture.viewStoreProperty());
        browser.sourceLabelProperty().addListener((o, a, b) -> histogram.loadSupport(browser.tracefs()));
        wireshark.ifaceProperty().bind(capture.ifaceProperty());
        wireshark.pcapngProperty().bind(capture.pcapngProperty());
        wireshark.openedFileProperty().bind(capture.sourceFileProperty());
        browser.detailsProperty().addListener((o, a, d) -> {
            if (d != null) {
                filter.eventProperty().set(d.format());
            }
        });
        // the builder's kernel form is checked through the backend once one runs (a capture started
        // it); typing a filter never starts it, since that may ask for a password
        filter.setKernelCheck((ev, f) -> capture.hasBackend()
                ? capture.backendClient().validateFilter(ev, f)
                        .thenApply(r -> new FilterBuilderViewModel.Verdict(r.accepted(), r.message(), r.position()))
                : CompletableFuture.failedFuture(new IllegalStateException("no live kernel: the backend is not running")),
                executor);
        capture.runningProperty().addListener((o, was, now) -> {
            if (was && !now) {
                long lost = capture.lostProperty().get();
                String st = capture.statusProperty().get();
                notify(String.format("capture stopped: %,d events, %,d lost", capture.eventCountProperty().get(), lost)
                        + (st.startsWith("backend stopped") || st.startsWith("stop failed") ? " (" + st + ")" : ""),
                        lost > 0 || !st.startsWith("stopped"));
            }
        });
        wireshark.generatedProperty().addListener((o, a, g) -> {
            if (g != null) {
                notify("dissector written to " + g.file() + " (" + g.summary() + ")", false);
            }
        });
        refreshRecent();
    }

    /** The query view's model (SQL over the opened file's store). */
    public QueryViewModel query() {
        return query;
    }

    /** The I/O graph's model. */
    public IoGraphViewModel ioGraph() {
        return ioGraph;
    }

    /**
     * Shows a notification.
     *
     * @param text    what happened
     * @param warning true for a warning
     */
    public void notify(String text, boolean warning) {
        notice.set(new Notice(++noticeSeq, text, warning));
    }

    /** The latest notification, null before the first. */
    public ObjectProperty<Notice> noticeProperty() {
        return notice;
    }

    /**
     * Opens a recorded capture (a pcapng of tracewire frames or a trace.dat) into the event table,
     * timeline, latency and histogram views, in the background. No root, no backend.
     *
     * @param file the file
     */
    public void openFile(Path file) {
        message.set("opening " + file + "…");
        capture.openFile(file, n -> {
            String what = n < 0 ? "its first screen; its store indexes every event" : String.format("%,d events", n);
            message.set(String.format("opened %s: %s", file, what));
            notify(String.format("opened %s: %s", file.getFileName(), what), false);
            if (n < 0) {
                whenStoreReady(file);
            }
        });
    }

    /** Once the opened file's store holds every event, the status bar says how many (UI thread). */
    private void whenStoreReady(Path file) {
        ChangeListener<StoreTable> ready = new ChangeListener<>() {
            @Override
            public void changed(ObservableValue<? extends StoreTable> o, StoreTable a, StoreTable t) {
                o.removeListener(this);
                if (t != null && file.toAbsolutePath().toString().equals(capture.sourceFileProperty().get())) {
                    message.set(String.format("opened %s: %,d events, every one in its store", file, t.total()));
                }
            }
        };
        if (capture.storeTableProperty().get() != null) {
            ready.changed(capture.storeTableProperty(), null, capture.storeTableProperty().get());
        } else {
            capture.storeTableProperty().addListener(ready);
        }
    }

    /** The window title: the opened file's name, else "tracewire". */
    public StringProperty titleProperty() {
        return title;
    }

    /** Re-reads the recent sessions list. */
    public void refreshRecent() {
        recent.setAll(store.recent());
    }

    /**
     * Adds the browser's selected events to the capture list without a filter: several events, and
     * for a selected system all its events shown ({@link BrowserViewModel#eventsToAdd()}). An event
     * already in the list keeps its filter.
     */
    public void addSelectedToCapture() {
        List<String> evs = browser.eventsToAdd();
        int added = 0;
        for (String ev : evs) {
            if (capture.getEvents().stream().noneMatch(e -> e.fullName().equals(ev))) {
                capture.addEvent(ev, "");
                added++;
            }
        }
        if (evs.size() == 1) {
            message.set(added == 1 ? "added " + evs.get(0) + " to the capture" : evs.get(0) + " is already in the capture");
        } else if (!evs.isEmpty()) {
            message.set("added " + added + " events to the capture" + (added < evs.size() ? " (" + (evs.size() - added) + " already there)" : ""));
        }
    }

    /** Adds the filter builder's event with its kernel filter to the capture list. */
    public void useFilterInCapture() {
        var f = filter.eventProperty().get();
        if (f == null || !filter.validProperty().get()) {
            message.set("no valid filter to use");
            return;
        }
        capture.addEvent(f.fullName(), filter.kernelProperty().get());
        message.set("capture: " + f.fullName() + " with filter " + filter.kernelProperty().get());
    }

    /**
     * Reopens a capture event's filter in the filter builder: the builder takes the event (its
     * format from the tree browsed) and the filter's text, loaded into rows; "Use in capture" then
     * replaces the event's filter. A filter that does not load stays in the text box with its error.
     *
     * @param spec an event of the capture list
     * @return true when the builder now holds the event (show it), false when its format is not known here
     */
    public boolean editCaptureFilter(EventSelection spec) {
        var format = RowRecords.formatsOf(browser::tracefs).apply(spec.fullName());
        if (format == null) {
            message.set("cannot edit the filter of " + spec.fullName() + ": the tree browsed has no such event");
            return false;
        }
        String text = spec.filter() == null ? "" : spec.filter();
        filter.eventProperty().set(format);
        filter.textProperty().set(text);
        if (filter.load(text)) {
            message.set("editing the filter of " + spec.fullName() + " (Use in capture replaces it)");
        } else {
            message.set("the filter of " + spec.fullName() + " does not load: " + filter.loadErrorProperty().get());
        }
        return true;
    }

    /**
     * Restores the setup the app had when it last closed ({@link SessionStore#lastSession()}), read
     * in the background. Applied only while the capture list is still empty (a session opened or
     * events added meanwhile win).
     *
     * @param done called on the UI thread with true when a session was applied
     */
    public void restoreLastSession(Consumer<Boolean> done) {
        executor.execute(store::lastSession, s -> {
            boolean apply = s.isPresent() && capture.getEvents().isEmpty() && !capture.runningProperty().get();
            if (apply) {
                apply(s.get());
                message.set("restored the last session (" + s.get().events().size() + " events)");
            }
            done.accept(apply);
        }, e -> {
            message.set("cannot restore the last session: " + e.getMessage());
            done.accept(false);
        });
    }

    /**
     * Remembers the current setup for the next start (at exit; a small file, written at once).
     *
     * @throws java.io.IOException when it cannot be written
     */
    public void rememberSession() throws IOException {
        store.saveLast(currentSession());
    }

    /** @return the capture setup as a session */
    public Session currentSession() {
        return new Session(Session.VERSION,
                capture.getEvents().stream().map(Messages.CaptureEvent::of).toList(),
                capture.ifaceProperty().get(), capture.pcapngProperty().get(), capture.bufferKbProperty().get());
    }

    /** @param s a session to apply to the capture view */
    public void apply(Session s) {
        List<EventSelection> evs = new ArrayList<>();
        List<String> bad = new ArrayList<>();
        for (Messages.CaptureEvent e : s.events()) {
            try {
                EventSelection sel = e.toSelection();
                evs.add(sel.filter() == null ? sel.withFilter("") : sel);
            } catch (IllegalArgumentException | NullPointerException x) {
                bad.add(e.event() + ": " + x.getMessage());
            }
        }
        capture.getEvents().setAll(evs);
        if (!bad.isEmpty()) {
            message.set("the session's events left out: " + String.join("; ", bad));
        }
        capture.ifaceProperty().set(s.iface());
        capture.pcapngProperty().set(s.pcapng());
        capture.bufferKbProperty().set(s.bufferKb());
    }

    /**
     * Saves the current session in the background.
     *
     * @param file where to
     * @param done called on the UI thread after a successful save
     */
    public void saveSession(Path file, Runnable done) {
        Session s = currentSession();
        executor.execute(() -> {
            store.save(file, s);
            return store.recent();
        }, r -> {
            recent.setAll(r);
            sessionFile.set(file.toString());
            message.set("saved session " + file);
            done.run();
        }, e -> message.set("cannot save " + file + ": " + e.getMessage()));
    }

    /**
     * Opens a session in the background and applies it.
     *
     * @param file the session
     * @param done called on the UI thread after it was applied
     */
    public void openSession(Path file, Runnable done) {
        executor.execute(() -> store.load(file), s -> {
            apply(s);
            recent.setAll(store.recent());
            sessionFile.set(file.toString());
            message.set("opened session " + file + " (" + s.events().size() + " events)");
            done.run();
        }, e -> message.set("cannot open " + file + ": " + e.getMessage()));
    }

    /** The session store. */
    public SessionStore store() {
        return store;
    }

    /** The browser's view model. */
    public BrowserViewModel browser() {
        return browser;
    }

    /** The filter builder's view model. */
    public FilterBuilderViewModel filter() {
        return filter;
    }

    /** The capture view model. */
    public CaptureViewModel capture() {
        return capture;
    }

    /** Streamed rows as records of their formats (filters, latency, histograms). */
    public RowRecords rowRecords() {
        return rowRecords;
    }

    /** The latency view's model. */
    public LatencyViewModel latency() {
        return latency;
    }

    /** The histogram view's model. */
    public HistogramViewModel histogram() {
        return histogram;
    }

    /** The timeline's view model. */
    public TimelineViewModel timeline() {
        return timeline;
    }

    /** The Wireshark view model. */
    public WiresharkViewModel wireshark() {
        return wireshark;
    }

    /** Recent session files, newest first. */
    public ObservableList<Path> getRecent() {
        return recent;
    }

    /** The last app-level message. */
    public StringProperty messageProperty() {
        return message;
    }

    /** The current session file, empty when unsaved. */
    public StringProperty sessionFileProperty() {
        return sessionFile;
    }
}
