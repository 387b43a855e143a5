package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.nio.file.Path;
import java.sql.ResultSet;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeSet;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.filter.And;
import org.tracewire.filter.Comparison;
import org.tracewire.filter.Filter;
import org.tracewire.filter.FilterField;
import org.tracewire.filter.FilterSyntaxException;
import org.tracewire.filter.Not;
import org.tracewire.filter.Op;
import org.tracewire.filter.Or;
import org.tracewire.filter.RecordFilter;
import org.tracewire.filter.Value;
import org.tracewire.format.EventFormat;
import org.tracewire.input.PcapngInput;
import org.tracewire.input.RecordInput;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.ContextPcapng;
import org.tracewire.testing.FixtureRecords;

/**
 * The filter model's SQL form ({@link org.tracewire.filter.SqlFilterCompiler}, through
 * {@link CaptureStore#filterQuery}) selects exactly the records {@link RecordFilter} (the model's
 * evaluator, with the kernel's meaning) selects: random filters over every filterable field of the
 * fixture's events (numbers signed and unsigned with every operator, strings with ==, != and globs,
 * CPU, COMM, common fields; constants taken from the records and at the types' edges), joined with
 * &&, || and !, compared frame set by frame set.
 */
class SqlFilterAgreementTest {
    private static final String SELECT = "SELECT * FROM ";
    private static final String WHERE = " WHERE ";

    @TempDir
    Path dir;

    @Test
    void sqlSelectsWhatTheRecordFilterSelects() throws Exception {
        List<EventRecord> recs = FixtureRecords.load();
        Path file = ContextPcapng.write(dir.resolve("f.pcapng"), recs, ContextPcapng.snapshot(recs), Map.of());
        Map<String, List<RecordInput.Event>> byEvent = new LinkedHashMap<>();
        try (PcapngInput in = PcapngInput.open(file)) {
            for (Iterator<RecordInput.Event> it = in.events(); it.hasNext(); ) {
                RecordInput.Event e = it.next();
                byEvent.computeIfAbsent(e.record().format().fullName(), k -> new ArrayList<>()).add(e);
            }
        }
        Random rnd = new Random(33);
        int filters = 0;
        long matchedTotal = 0;
        try (CaptureStore store = CaptureStore.open(List.of(file), new StoreCache(dir.resolve("cache"), 1L << 30), null);
             Statement s = store.connection().createStatement()) {
            for (Map.Entry<String, List<RecordInput.Event>> ev : byEvent.entrySet()) {
                List<RecordInput.Event> events = ev.getValue();
                EventFormat format = events.get(0).record().format();
                List<FilterField> fields = new ArrayList<>();
                for (FilterField f : FilterField.filterable(format)) {
                    if (!f.isStringPointer()) {
                        fields.add(f);
                    }
                }
                // filterQuery gives SELECT * FROM <from> WHERE <condition>: the event's 12 filters are
                // evaluated as columns of one query per distinct <from> (a row is selected where its
                // filter's condition IS TRUE, as WHERE selects), not one query per filter
                List<Filter> batch = new ArrayList<>();
                List<String> queries = new ArrayList<>();
                List<TreeSet<Long>> got = new ArrayList<>();
                Map<String, List<Integer>> byFrom = new LinkedHashMap<>();
                for (int i = 0; i < 12; i++) {
                    Filter filter = random(fields, events, rnd, 1 + rnd.nextInt(3));
                    String q = store.filterQuery(ev.getKey(), filter.toText());
                    batch.add(filter);
                    queries.add(q);
                    got.add(new TreeSet<>());
                    assertTrue(q.startsWith(SELECT) && q.contains(WHERE), q);
                    byFrom.computeIfAbsent(q.substring(SELECT.length(), q.indexOf(WHERE)), k -> new ArrayList<>()).add(i);
                }
                for (Map.Entry<String, List<Integer>> from : byFrom.entrySet()) {
                    StringBuilder sql = new StringBuilder("SELECT frame");
                    for (int i : from.getValue()) {
                        String q = queries.get(i);
                        sql.append(", (").append(q.substring(q.indexOf(WHERE) + WHERE.length())).append(") IS TRUE");
                    }
                    try (ResultSet rs = s.executeQuery(sql.append(" FROM ").append(from.getKey()).toString())) {
                        while (rs.next()) {
                            for (int c = 0; c < from.getValue().size(); c++) {
                                if (rs.getBoolean(2 + c)) {
                                    got.get(from.getValue().get(c)).add(rs.getLong(1));
                                }
                            }
                        }
                    }
                }
                TreeSet<Long> first = new TreeSet<>(); // filterQuery's own statement, as given, for one filter
                try (ResultSet rs = s.executeQuery(queries.get(0))) {
                    while (rs.next()) {
                        first.add(rs.getLong("frame"));
                    }
                }
                assertEquals(got.get(0), first, queries.get(0));
                for (int i = 0; i < batch.size(); i++) {
                    Filter filter = batch.get(i);
                    RecordFilter rf = RecordFilter.compile(filter, format, pid -> events.get(0).renderer().comm(pid));
                    TreeSet<Long> want = new TreeSet<>();
                    for (RecordInput.Event e : events) {
                        if (rf.test(e.record())) {
                            want.add(e.frame());
                        }
                    }
                    assertEquals(want, got.get(i), ev.getKey() + ": " + filter.toText() + "\n" + queries.get(i));
                    filters++;
                    matchedTotal += want.size();
                }
            }
            assertThrows(FilterSyntaxException.class, () -> store.filterQuery("sched:sched_switch", "prev_pid ~ \"x\""));
            assertThrows(IllegalArgumentException.class, () -> store.filterQuery("sched:nope", "CPU == 0"));
        }
        assertTrue(filters >= 100 && matchedTotal > 1000, filters + " filters, " + matchedTotal + " matches");
    }

    private static Filter random(List<FilterField> fields, List<RecordInput.Event> events, Random rnd, int leaves) {
        if (leaves == 1) {
            return leaf(fields, events, rnd);
        }
        Filter l = random(fields, events, rnd, 1);
        Filter r = random(fields, events, rnd, leaves - 1);
        Filter f = rnd.nextBoolean() ? new And(l, r) : new Or(l, r);
        return rnd.nextInt(4) == 0 ? new Not(f) : f;
    }

    private static Filter leaf(List<FilterField> fields, List<RecordInput.Event> events, Random rnd) {
        FilterField f = fields.get(rnd.nextInt(fields.size()));
        RecordInput.Event sample = events.get(rnd.nextInt(events.size()));
        EventRecord r = sample.record();
        if (f.type() == FilterField.Type.STRING) {
            String v = f.source() == FilterField.Source.COMM ? sample.renderer().comm(r.pid()) : r.string(f.field());
            int op = rnd.nextInt(4);
            if (op == 0) {
                return new Comparison(f.name(), Op.NE, new Value.Str(v));
            }
            if (op == 1 && !v.isEmpty()) {
                String glob = rnd.nextBoolean() ? v.substring(0, 1 + rnd.nextInt(v.length())) + "*"
                        : "*" + v.substring(rnd.nextInt(v.length()));
                return new Comparison(f.name(), Op.GLOB, new Value.Str(glob.replace("[", "?").replace("]", "?")));
            }
            return new Comparison(f.name(), Op.EQ, new Value.Str(v));
        }
        long raw = f.source() == FilterField.Source.CPU ? r.cpu() : r.integer(f.field());
        BigInteger v = f.signed() ? BigInteger.valueOf(raw) : new BigInteger(Long.toUnsignedString(raw));
        switch (rnd.nextInt(5)) {
            case 0 -> v = f.min();
            case 1 -> v = f.max();
            case 2 -> v = v.add(BigInteger.ONE).min(f.max());
            default -> {
            }
        }
        List<Op> ops = List.of(Op.EQ, Op.NE, Op.LT, Op.LE, Op.GT, Op.GE, Op.BAND);
        Op op = ops.get(rnd.nextInt(ops.size()));
        if (op == Op.BAND && v.signum() < 0) {
            v = v.negate().min(f.max());
        }
        return new Comparison(f.name(), op, new Value.Num(v));
    }
}
