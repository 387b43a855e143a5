package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.math.BigInteger;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.function.IntFunction;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixtureRecords;

/**
 * {@link RecordFilter} on the real records of the page fixture agrees with the reference
 * {@link Evaluator} (the kernel's meaning over a map of values read independently from each record),
 * for random filters and for comparisons against values the records actually hold.
 */
class RecordFilterTest {
    private static final IntFunction<String> COMMS = pid -> "task" + (pid % 3);

    /** The reference's view of a record: each filterable name → BigInteger (as the field's type) or String. */
    private static Map<String, Object> values(EventRecord r, List<FilterField> fields) {
        Map<String, Object> m = new HashMap<>();
        for (FilterField ff : fields) {
            Object v;
            switch (ff.source()) {
                case CPU -> v = BigInteger.valueOf(r.cpu());
                case COMM -> v = COMMS.apply(r.pid());
                default -> {
                    if (ff.type() == FilterField.Type.STRING) {
                        if (ff.isStringPointer()) {
                            continue;
                        }
                        v = r.string(ff.field());
                    } else {
                        long raw = r.integer(ff.field());
                        BigInteger b = BigInteger.valueOf(raw);
                        v = ff.signed() || raw >= 0 ? b : b.add(BigInteger.ONE.shiftLeft(64));
                    }
                }
            }
            m.put(Evaluator.canonical(ff), v);
        }
        return m;
    }

    private static Map<EventFormat, List<EventRecord>> byEvent() {
        Map<EventFormat, List<EventRecord>> out = new HashMap<>();
        for (EventRecord r : FixtureRecords.load()) {
            if (Events.NAMES.contains(r.format().fullName())) {
                out.computeIfAbsent(r.format(), k -> new ArrayList<>()).add(r);
            }
        }
        assertEquals(Events.NAMES.size(), out.size(), "the fixture holds records of every test event");
        return out;
    }

    @Test
    void randomFiltersAgreeWithTheReferenceOnRealRecords() {
        RandomFilters gen = new RandomFilters(11);
        int evaluated = 0;
        int passed = 0;
        for (var e : byEvent().entrySet()) {
            EventFormat f = e.getKey();
            List<FilterField> fields = RandomFilters.filterable(f);
            List<EventRecord> records = e.getValue();
            for (int i = 0; i < 300; i++) {
                Filter filter = gen.valid(f, 1 + i % 3);
                RecordFilter rf;
                try {
                    rf = RecordFilter.compile(filter, f, COMMS);
                } catch (FilterSyntaxException ex) {
                    assertTrue(ex.detail().contains("pointer"), ex.getMessage());
                    continue;
                }
                for (int k = 0; k < records.size(); k += 1 + records.size() / 40) {
                    EventRecord r = records.get(k);
                    boolean want = Evaluator.eval(filter, f, values(r, fields));
                    assertEquals(want, rf.test(r), filter.toText() + " on " + values(r, fields));
                    evaluated++;
                    passed += want ? 1 : 0;
                }
            }
        }
        assertTrue(evaluated > 10_000, "evaluated " + evaluated);
        assertTrue(passed > evaluated / 10 && passed < evaluated * 9 / 10, passed + " of " + evaluated + " passed: both outcomes are exercised");
    }

    /** Comparisons against values the records hold, so == and ~ match too (random values rarely do). */
    @Test
    void comparisonsWithRecordValuesAgreeWithTheReference() {
        Random rnd = new Random(5);
        int matches = 0;
        int evaluated = 0;
        for (var e : byEvent().entrySet()) {
            EventFormat f = e.getKey();
            List<FilterField> fields = RandomFilters.filterable(f).stream().filter(ff -> !ff.isStringPointer()).toList();
            List<EventRecord> records = e.getValue();
            for (int i = 0; i < 400; i++) {
                EventRecord source = records.get(rnd.nextInt(records.size()));
                FilterField ff = fields.get(rnd.nextInt(fields.size()));
                Object v = values(source, fields).get(Evaluator.canonical(ff));
                Comparison c;
                if (v instanceof String s) {
                    Op op = new Op[] {Op.EQ, Op.NE, Op.GLOB}[rnd.nextInt(3)];
                    String k = op == Op.GLOB && s.length() > 1 ? s.substring(0, s.length() / 2) + "*" : s;
                    if (FilterPrinter.unquotable(k) != null || (op == Op.GLOB && Glob.problem(k) != null)) {
                        continue;
                    }
                    c = new Comparison(ff.name(), op, Value.of(k));
                } else {
                    Op op = Op.values()[rnd.nextInt(Op.values().length - 1)];
                    c = new Comparison(ff.name(), op, new Value.Num((BigInteger) v));
                }
                RecordFilter rf = RecordFilter.compile(c, f, COMMS);
                for (EventRecord r : records) {
                    boolean want = Evaluator.eval(c, f, values(r, fields));
                    assertEquals(want, rf.test(r), c.toText() + " on " + f.fullName());
                    matches += want ? 1 : 0;
                    evaluated++;
                }
                assertTrue(rf.test(source) || c.op() == Op.NE || c.op() == Op.LT || c.op() == Op.GT || c.op() == Op.BAND,
                        c.toText() + " holds on the record its value came from");
            }
        }
        assertTrue(matches > 1000 && matches < evaluated, matches + " of " + evaluated);
    }

    @Test
    void signedAndUnsignedComparisonsFollowTheFieldType() {
        EventFormat sw = Events.sched_switch();
        EventRecord r = FixtureRecords.load().stream().filter(x -> x.format().equals(sw)).findFirst().orElseThrow();
        long prio = r.integer(sw.field("prev_prio"));
        assertTrue(RecordFilter.compile("prev_prio > -1", sw).test(r), "int prev_prio compares signed");
        assertEquals(prio == 0, RecordFilter.compile("prev_prio == 0", sw).test(r));
        assertTrue(RecordFilter.compile("CPU == " + r.cpu(), sw).test(r));
        assertTrue(RecordFilter.compile("prev_comm == \"" + r.string(sw.field("prev_comm")) + "\"", sw).test(r));
    }

    @Test
    void refusalsSayWhere() {
        EventFormat sw = Events.sched_switch();
        FilterSyntaxException comm = assertThrows(FilterSyntaxException.class,
                () -> RecordFilter.compile("prev_pid == 1 && COMM == \"x\"", sw));
        assertEquals(17, comm.position(), comm.getMessage());
        assertTrue(comm.detail().contains("comm lookup"), comm.getMessage());
        FilterSyntaxException missing = assertThrows(FilterSyntaxException.class, () -> RecordFilter.compile("nosuch == 1", sw));
        assertEquals(0, missing.position());
        EventFormat openat = Events.get("syscalls:sys_enter_openat");
        FilterSyntaxException ptr = assertThrows(FilterSyntaxException.class,
                () -> RecordFilter.compile("filename == \"/etc\"", openat));
        assertTrue(ptr.detail().contains("pointer"), ptr.getMessage());
        EventRecord other = FixtureRecords.load().stream().filter(x -> !x.format().equals(sw)).findFirst().orElseThrow();
        assertThrows(IllegalArgumentException.class, () -> RecordFilter.compile("prev_pid == 1", sw).test(other));
    }
}
