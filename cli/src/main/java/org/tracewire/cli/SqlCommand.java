package org.tracewire.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Files;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;
import java.util.concurrent.ExecutionException;
import org.tracewire.filter.FilterSyntaxException;
import org.tracewire.input.PcapngInput;
import org.tracewire.store.CaptureStore;
import org.tracewire.store.QueryOutput;
import org.tracewire.store.StoreCache;
import org.tracewire.text.SafeText;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tracewire sql FILE... "SELECT …"}: SQL over the capture store of recorded files
 * ({@link CaptureStore}; tables and views in {@code docs/store.md}). The store module (and DuckDB)
 * is not a runtime dependency of this module: the launcher puts it on the class path of
 * {@code sql} only, never on that of a capture process; without it this command says so.
 */
@Command(name = "sql", mixinStandardHelpOptions = true,
        description = {"Query recorded captures (pcapng of tracewire frames, trace.dat) with SQL (DuckDB).",
                "Tables: events, lost, captures, sources, one typed table per event (sched_switch, sys_enter_openat, ...: a column per field),",
                "views sched_slice, thread_state, latency (wakeup, syscall, irq, softirq pairs), sched_latency, stack, and the",
                "table macro event_rate(interval_ns); every row has a host column. The store of each file is built on first use",
                "and kept in $XDG_CACHE_HOME/tracewire (default ~/.cache/tracewire) while the file is unchanged. See docs/store.md."},
        footerHeading = Main.EXAMPLES,
        footer = {"  Events per type, then the longest wake-up latency (ns) as CSV:",
                "    tracewire sql sched.pcapng 'SELECT event, count(*) FROM events GROUP BY 1'",
                "    tracewire sql --csv sched.pcapng 'SELECT max(latency) FROM sched_latency'",
                "  The tables and their columns:",
                "    tracewire sql --schema sched.pcapng"})
final class SqlCommand implements Callable<Integer> {
    @Parameters(arity = "1..*", paramLabel = "FILE... QUERY",
            description = "The capture files, then the query (one argument: quote it). With --schema, files only.")
    List<String> args = new ArrayList<>();

    @Option(names = "--csv", description = "CSV (a header line, then a line per row).")
    boolean csv;

    @Option(names = "--json", description = "JSON lines (an object per row).")
    boolean json;

    @Option(names = "--schema", description = "List the tables and views with their columns and types (no query).")
    boolean schema;

    @Option(names = "--event", paramLabel = "SYSTEM:EVENT",
            description = "With --where: the event whose typed table the filter applies to.")
    String event;

    @Option(names = "--where", paramLabel = "FILTER",
            description = {"A filter in the kernel's syntax (as capture -f: prev_pid > 100 && prev_comm ~ \"kworker*\") over --event's fields,",
                    "compiled to SQL: the matching rows form the view 'matched'; without QUERY they are printed in frame order."})
    String where;

    @Option(names = "--follow", description = {"Index each pcapng while a capture still writes it (capture -w FILE in another",
            "terminal), one pcapng in steps as the app does; the query runs once the capture has closed the file."})
    boolean follow;

    @Option(names = "--cache-dir", paramLabel = "DIR",
            description = "Where stores are kept (default $XDG_CACHE_HOME/tracewire, else ~/.cache/tracewire).")
    Path cacheDir;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (csv && json) {
            throw new Main.UsageException("--csv and --json exclude each other");
        }
        if ((where == null) != (event == null)) {
            throw new Main.UsageException("--where and --event go together");
        }
        if (schema && where != null) {
            throw new Main.UsageException("--schema takes no --where");
        }
        boolean query = !schema && (where == null || !isFile(args.get(args.size() - 1)));
        List<String> files = query ? args.subList(0, args.size() - 1) : args;
        if (files.isEmpty()) {
            throw new Main.UsageException(schema ? "no FILE given" : "give the files, then the query");
        }
        List<Path> paths = new ArrayList<>();
        for (String f : files) {
            Path p = Path.of(f);
            if (!Files.isRegularFile(p)) {
                throw new Main.UsageException(f + ": no such file");
            }
            paths.add(p);
        }
        try {
            Class.forName("org.duckdb.DuckDBDriver");
        } catch (ClassNotFoundException | NoClassDefFoundError e) {
            spec.commandLine().getErr().println("sql: the capture store (DuckDB) is not on the class path: run it as ./tracewire sql");
            return Main.EXIT_FAILURE;
        }
        return Store.run(this, paths);
    }

    /** True when the argument names an existing file (then, with --where, it is no query). */
    private static boolean isFile(String arg) {
        try {
            return Files.isRegularFile(Path.of(arg));
        } catch (InvalidPathException e) {
            return false;
        }
    }

    /** True when a file starts with pcapng's magic (a capture's file once its writer has started it). */
    private static boolean isPcapng(Path file) {
        try (var in = Files.newInputStream(file)) {
            return PcapngInput.hasMagic(in.readNBytes(4));
        } catch (IOException e) {
            return false;
        }
    }

    /** The part that needs the store module (loaded only once it is known to be there). */
    private static final class Store {
        static int run(SqlCommand c, List<Path> paths) throws Exception {
            PrintWriter out = c.spec.commandLine().getOut();
            PrintWriter err = c.spec.commandLine().getErr();
            StoreCache cache = c.cacheDir != null ? new StoreCache(c.cacheDir, StoreCache.ofUser(System.getenv()).maxBytes())
                    : StoreCache.ofUser(System.getenv());
            CaptureStore store;
            try {
                store = c.follow && paths.size() == 1 && isPcapng(paths.get(0)) ? followed(paths.get(0), cache, err)
                        : CaptureStore.open(paths, cache, line -> err.println("sql: " + line), c.follow);
            } catch (IllegalArgumentException e) {
                throw new Main.UsageException(e.getMessage());
            }
            store.missingViews().forEach((view, why) -> err.println("sql: no view " + view + " (" + SafeText.escape(why) + ")"));
            try (store; Statement s = store.connection().createStatement()) {
                boolean given = !c.schema && paths.size() < c.args.size();
                if (c.where != null) {
                    try {
                        s.execute("CREATE TEMP VIEW matched AS " + store.filterQuery(c.event, c.where));
                    } catch (FilterSyntaxException e) {
                        throw new Main.UsageException("--where: " + e.getMessage());
                    } catch (IllegalArgumentException e) {
                        throw new Main.UsageException("--event: " + e.getMessage());
                    }
                }
                String query = c.where != null && !given ? "SELECT * FROM matched ORDER BY host, frame" : c.schema
                        ? "SELECT table_name AS \"table\", column_name AS \"column\", data_type AS type FROM information_schema.columns"
                          + " WHERE table_catalog = current_database() AND table_schema = 'main'"
                          + " ORDER BY table_name, ordinal_position"
                        : c.args.get(c.args.size() - 1);
                QueryOutput.Form form = c.csv ? QueryOutput.Form.CSV : c.json ? QueryOutput.Form.JSON : QueryOutput.Form.TABLE;
                try (ResultSet rs = s.executeQuery(query)) {
                    QueryOutput.print(rs, form, out);
                } catch (SQLException e) {
                    err.println("sql: " + e.getMessage().lines().findFirst().orElse(e.getMessage()).strip());
                    return Main.EXIT_FAILURE;
                }
            }
            return 0;
        }

        /**
         * {@code --follow} of one pcapng: the store the app builds of a live capture
         * ({@link CaptureStore#following}, committed in steps while a process of this host holds
         * the file open for writing), ready once the file is read to its end.
         */
        private static CaptureStore followed(Path pcapng, StoreCache cache, PrintWriter err) throws Exception {
            CaptureStore store = CaptureStore.following(pcapng, cache, null, null);
            try {
                var r = store.built().get();
                err.println("sql: " + SafeText.escape(pcapng.toString()) + ": store built while the file grew, "
                        + (r == null ? store.committedEvents() : r.events()) + " events");
                return store;
            } catch (ExecutionException e) {
                store.close();
                throw e.getCause() instanceof Exception x ? x : e;
            }
        }
    }
}
