package org.tracewire.app.query;

import java.sql.Connection;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;
import java.util.function.LongSupplier;
import javafx.collections.ObservableListBase;
import org.tracewire.app.capture.StoreQueries;
import org.tracewire.app.util.TaskExecutor;
import org.tracewire.store.QueryOutput;

/**
 * The rows of a stored result as a virtual list: pages of {@value #PAGE} rows read from
 * {@link QueryResult#TABLE} on the store's worker when first asked for (the last 64 pages kept),
 * each row its cells as text ({@link QueryOutput#cell}); a row not read yet is {@link #LOADING}
 * and an update follows when its page comes. Read on the UI thread.
 */
final class ResultRows extends ObservableListBase<List<String>> {
    /** Rows per page read from a stored result. */
    static final int PAGE = 256;
    /** What a row not fetched yet shows. */
    static final List<String> LOADING = List.of();

    private final StoreQueries<Connection> store;
    private final TaskExecutor ui;
    private final LongSupplier latest;
    private final Consumer<String> failed;
    private final long gen;
    private final int size;
    private final int width;
    private final Map<Integer, List<List<String>>> pages = new LinkedHashMap<>(16, 0.75f, true) {
        @Override
        protected boolean removeEldestEntry(Map.Entry<Integer, List<List<String>>> e) {
            return size() > 64;
        }
    };
    private final Set<Integer> requested = new HashSet<>();

    /**
     * @param latest the number of the newest query: pages of an older one ({@code gen}) are not read
     * @param failed why a page could not be read (UI thread)
     * @param gen    the query's number
     * @param size   rows in the result
     * @param width  columns in the result
     */
    ResultRows(StoreQueries<Connection> store, TaskExecutor ui, LongSupplier latest, Consumer<String> failed, long gen,
               int size, int width) {
        this.store = store;
        this.ui = ui;
        this.latest = latest;
        this.failed = failed;
        this.gen = gen;
        this.size = size;
        this.width = width;
    }

    @Override
    public List<String> get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException(index);
        }
        int p = index / PAGE;
        List<List<String>> page = pages.get(p);
        if (page == null && requested.add(p)) {
            fetch(p);
            page = pages.get(p); // a direct executor has it already
        }
        return page == null || index % PAGE >= page.size() ? LOADING : page.get(index % PAGE);
    }

    private void fetch(int p) {
        store.worker().execute(() -> {
            if (latest.getAsLong() != gen) {
                return; // a newer result replaced the table
            }
            List<List<String>> page = new ArrayList<>();
            String why = null;
            try {
                store.execute("SELECT * FROM " + QueryResult.TABLE + " LIMIT " + PAGE + " OFFSET " + (long) p * PAGE, rs -> {
                    while (rs.next()) {
                        page.add(row(rs, width));
                    }
                });
            } catch (SQLException e) {
                why = StoreQueries.message(e);
            }
            String problem = why;
            ui.runOnUi(() -> {
                requested.remove(p);
                if (problem != null) {
                    failed.accept(problem);
                    return;
                }
                pages.put(p, page);
                beginChange();
                for (int i = 0; i < page.size(); i++) {
                    nextUpdate(p * PAGE + i);
                }
                endChange();
            });
        });
    }

    @Override
    public int size() {
        return size;
    }

    /** The current row's first {@code n} cells as text. */
    static List<String> row(ResultSet rs, int n) throws SQLException {
        List<String> r = new ArrayList<>(n);
        for (int i = 1; i <= n; i++) {
            r.add(QueryOutput.cell(rs.getObject(i)));
        }
        return List.copyOf(r);
    }
}
