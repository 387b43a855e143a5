package org.tracewire.app.capture;

import javafx.application.Platform;
import java.util.Collections;
import javafx.beans.value.ChangeListener;
import javafx.collections.FXCollections;
import javafx.collections.ListChangeListener;
import javafx.collections.ObservableList;
import javafx.event.EventHandler;
import javafx.geometry.Orientation;
import javafx.scene.Node;
import javafx.scene.control.ScrollBar;
import javafx.scene.control.TableView;
import javafx.scene.control.skin.VirtualFlow;
import javafx.scene.input.KeyEvent;
import javafx.scene.input.ScrollEvent;
import javafx.scene.layout.HBox;
import javafx.scene.layout.Priority;
import javafx.scene.layout.Region;
import javafx.scene.layout.VBox;

/**
 * The store table's rows in a {@link TableView} that holds only the rows it shows
 * ({@link RowWindow}: as many as fit, however many rows the view has), with a scroll bar of its
 * own beside it over every row. JavaFX 21's {@code VirtualFlow} walks its rows from the first to
 * the current one on each layout, so showing a row near the end of millions is slow
 * (BENCHMARKS.md); a window of a page of rows lays out in the same time wherever it is.
 *
 * <p>The row shown at the top and the selected row are numbers of the store table's rows
 * ({@link #topRow()}, {@link #selectedRow()}); the table's own selection is the selected row while
 * it is shown, none otherwise (the details pane keeps the row). This class does the vertical
 * scrolling: the bar, the wheel over the table, and the keys Up, Down, Page Up, Page Down, Home and
 * End (which move the selection and scroll as little as shows it). A new list of rows (a new sort
 * or filter, or the rows of a grown live capture) keeps the top row, and finds the selected
 * frame again: where it was on screen, or, when it kept its row, without moving anything.
 *
 * <p>Without a store table (the pane hidden) the table holds a screenful of placeholder rows
 * instead of the window, so that its rows and cells are made and styled while nothing is shown
 * (the first show of a live capture's table, at its store's first commit, then only fills them).
 * UI thread.
 */
public final class WindowedTable extends HBox {
    /** Rows the window holds before the table is laid out. */
    private static final int FIRST_CAPACITY = 40;

    private final TableView<EventRow> table;
    private final RowWindow<EventRow> window = new RowWindow<>(StoreTable.LOADING);
    private final ScrollBar bar = new ScrollBar();
    private final Region headerGap = new Region();
    private StoreTable bound;
    /** The selected row of the store table's rows, -1 for none. */
    private int selected = -1;
    /** The frame of the selected row, once known (0: none), to find it again in a new list. */
    private long selectedFrame;
    /** True while this class changes the window or the table's selection itself. */
    private boolean syncing;
    private boolean barSyncing;
    private boolean reselectQueued;
    /** Wheel pixels not scrolled yet (less than a row). */
    private double wheel;
    private final ChangeListener<ObservableList<EventRow>> onRows = (o, a, list) -> newRows(list);
    /** What the table holds without a store table: rows made and styled before the first show. */
    private final ObservableList<EventRow> placeholder =
            FXCollections.observableArrayList(Collections.nCopies(FIRST_CAPACITY, StoreTable.LOADING));

    /** @param table the table (its fixed cell size set): its items become the window */
    WindowedTable(TableView<EventRow> table) {
        this.table = table;
        table.setItems(placeholder);
        window.setCapacity(FIRST_CAPACITY);
        table.getSelectionModel().selectedItemProperty().addListener((o, a, b) -> {
            if (b != null && b.frame() > 0) {
                selectedFrame = b.frame();
            }
        });
        table.getSelectionModel().selectedIndexProperty().addListener((o, a, b) -> {
            if (!syncing) { // a click
                selected = b.intValue() < 0 ? -1 : window.top() + b.intValue();
                selectedFrame = 0;
            }
        });
        window.addListener((ListChangeListener<EventRow>) c -> {
            if (!syncing && !reselectQueued) { // a page arrived: the selected item may have been "loading"
                reselectQueued = true;
                Platform.runLater(() -> {
                    reselectQueued = false;
                    syncSelection();
                });
            }
        });
        scrolling();
        HBox.setHgrow(table, Priority.ALWAYS);
        headerGap.setMinHeight(Region.USE_PREF_SIZE);
        VBox.setVgrow(bar, Priority.ALWAYS);
        bar.setMaxHeight(Double.MAX_VALUE);
        getChildren().addAll(table, new VBox(headerGap, bar));
    }

    /** Shows a store table's rows (null: none), from the top, nothing selected. */
    void setTable(StoreTable t) {
        if (bound != null) {
            bound.rowsProperty().removeListener(onRows);
        }
        bound = t;
        table.setItems(t == null ? placeholder : window);
        selected = -1;
        selectedFrame = 0;
        moveWindow(() -> {
            window.setTop(0);
            window.setSource(t == null ? null : t.rowsProperty().get());
        });
        if (t != null) {
            t.rowsProperty().addListener(onRows);
        }
    }

    /**
     * Selects a row and scrolls so that it shows three rows below the top (or as near as the end
     * allows).
     *
     * @param row   a row of the store table's rows (0-based)
     * @param frame its frame
     */
    void showRow(int row, long frame) {
        selected = row;
        selectedFrame = frame;
        setTop(row - 3);
    }

    /** Rows of the current view (the store table's rows, not only those shown). */
    public int rowCount() {
        return window.source().size();
    }

    /** The row shown at the top (0-based, of the store table's rows). */
    public int topRow() {
        return window.top();
    }

    /** Rows shown (as many as fit; fewer at the end of the rows). */
    public int shownRows() {
        return window.size();
    }

    /** The selected row (0-based, of the store table's rows), -1 for none. */
    public int selectedRow() {
        return selected;
    }

    /** The scroll bar over every row: its value is the top row. */
    public ScrollBar scrollBar() {
        return bar;
    }

    /**
     * A new list of rows: the selected frame found again in it. A list extended from the one shown
     * (a live capture's grown store in frame order) has the rows shown and the selected row move by
     * the rows added above them: the table holds still.
     */
    private void newRows(ObservableList<EventRow> list) {
        int oldTop = window.top();
        int oldSelected = selected;
        long frame = selectedFrame;
        long shift = list instanceof StoreRowList r && window.source() instanceof StoreRowList old ? r.shiftFrom(old) : -1;
        if (shift >= 0) {
            selected = oldSelected < 0 ? -1 : (int) Math.min(Integer.MAX_VALUE, oldSelected + shift);
            moveWindow(() -> window.setSource(list));
            setTop((int) Math.min(Integer.MAX_VALUE, oldTop + shift));
            return;
        }
        selected = -1;
        moveWindow(() -> window.setSource(list));
        setTop(oldTop);
        StoreTable t = bound;
        if (frame > 0 && oldSelected >= 0 && t != null) {
            t.rowOf(frame, row -> {
                if (bound != t || t.rowsProperty().get() != list || row < 0 || selected >= 0) {
                    return; // another list, or a row selected meanwhile
                }
                selected = row;
                selectedFrame = frame;
                setTop(row == oldSelected ? window.top() : row - (oldSelected - oldTop)); // where it was on screen
                syncSelection();
            });
        }
    }

    /** Moves the window to {@code top} (clamped to the rows). */
    private void setTop(int top) {
        int max = Math.max(0, rowCount() - window.capacity());
        int t = Math.max(0, Math.min(top, max));
        moveWindow(() -> window.setTop(t));
    }

    /** Changes the window; then the bar, the table's selection and the pages wanted follow. */
    private void moveWindow(Runnable change) {
        boolean was = syncing;
        syncing = true;
        try {
            change.run();
        } finally {
            syncing = was;
        }
        syncBar();
        syncSelection();
        if (bound != null) {
            bound.showing(window.top(), window.top() + window.capacity());
        }
    }

    /** Selects the selected row in the table when it is shown, else nothing. */
    private void syncSelection() {
        boolean was = syncing;
        syncing = true;
        try {
            var sm = table.getSelectionModel();
            int local = selected - window.top();
            if (selected >= 0 && local >= 0 && local < window.size()) {
                if (sm.getSelectedIndex() != local || sm.getSelectedItem() != window.get(local)) {
                    sm.clearAndSelect(local);
                }
            } else if (sm.getSelectedIndex() >= 0) {
                sm.clearSelection();
            }
        } finally {
            syncing = was;
        }
    }

    private void syncBar() {
        barSyncing = true;
        try {
            int n = rowCount();
            int cap = Math.max(1, window.capacity());
            double max = Math.max(0, n - cap);
            bar.setMax(Math.max(max, 1e-9));
            bar.setVisibleAmount(max == 0 ? 1 : max * cap / n); // the thumb: the share of rows shown
            bar.setBlockIncrement(Math.max(1, cap - 1));
            bar.setValue(window.top());
            bar.setDisable(max == 0);
        } finally {
            barSyncing = false;
        }
    }

    /** Selects a row and scrolls as little as shows it. */
    private void select(int row) {
        selected = row;
        selectedFrame = 0;
        int top = window.top();
        int cap = Math.max(1, window.capacity());
        if (row < top) {
            setTop(row);
        } else if (row >= top + cap) {
            setTop(row - cap + 1);
        }
        syncSelection();
    }

    /** The bar, the wheel and the keys move the window; its capacity follows the table's height. */
    private void scrolling() {
        bar.setOrientation(Orientation.VERTICAL);
        bar.setId("store-scroll");
        bar.setMin(0);
        bar.setUnitIncrement(1);
        bar.valueProperty().addListener((o, a, b) -> {
            if (!barSyncing) {
                setTop((int) Math.round(b.doubleValue()));
            }
        });
        EventHandler<ScrollEvent> wheelHandler = e -> {
            if (e.getDeltaY() == 0 || Math.abs(e.getDeltaX()) > Math.abs(e.getDeltaY())) {
                return; // sideways: the table's own horizontal scrolling
            }
            double cell = table.getFixedCellSize();
            wheel -= e.getDeltaY();
            int rows = (int) (wheel / cell);
            wheel -= rows * cell;
            if (rows != 0) {
                setTop(window.top() + rows);
            }
            e.consume();
        };
        table.addEventFilter(ScrollEvent.SCROLL, wheelHandler);
        bar.addEventHandler(ScrollEvent.SCROLL, wheelHandler);
        table.addEventFilter(KeyEvent.KEY_PRESSED, this::key);
        table.skinProperty().addListener((o, a, skin) -> Platform.runLater(this::watchFlow));
    }

    private void key(KeyEvent e) {
        int n = rowCount();
        if (n == 0 || e.isAltDown()) {
            return;
        }
        int top = window.top();
        int page = Math.max(1, window.capacity() - 1);
        int from = selected < 0 ? top : selected;
        int to;
        switch (e.getCode()) {
            case UP -> to = selected < 0 ? top : from - 1;
            case DOWN -> to = selected < 0 ? top : from + 1;
            case PAGE_UP -> {
                to = from - page;
                setTop(top - page);
            }
            case PAGE_DOWN -> {
                to = from + page;
                setTop(top + page);
            }
            case HOME -> to = 0;
            case END -> to = n - 1;
            default -> {
                return;
            }
        }
        e.consume();
        select(Math.max(0, Math.min(n - 1, to)));
    }

    /** Follows the flow's height (less the horizontal bar when shown): as many rows as fit whole. */
    private void watchFlow() {
        if (!(table.lookup(".virtual-flow") instanceof VirtualFlow<?> flow)) {
            return;
        }
        ScrollBar hbar = null;
        for (Node n : flow.getChildrenUnmodifiable()) {
            if (n instanceof ScrollBar s && s.getOrientation() == Orientation.HORIZONTAL) {
                hbar = s;
            }
        }
        ScrollBar h = hbar;
        Runnable fit = () -> {
            double height = flow.getHeight() - (h != null && h.isVisible() ? h.getHeight() : 0);
            int cap = Math.max(1, (int) Math.floor(height / table.getFixedCellSize()));
            if (flow.getHeight() > 0 && cap != window.capacity()) {
                int top = window.top();
                moveWindow(() -> window.setCapacity(cap));
                setTop(top); // clamped to the new capacity at the end
            }
        };
        flow.heightProperty().addListener((o, a, b) -> fit.run());
        if (h != null) {
            h.visibleProperty().addListener((o, a, b) -> fit.run());
            h.heightProperty().addListener((o, a, b) -> fit.run());
        }
        fit.run();
        if (table.lookup(".column-header-background") instanceof Region header) {
            headerGap.prefHeightProperty().bind(header.heightProperty());
        }
    }
}
