package org.tracewire.store;

import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.tracewire.format.SyscallEvents;

/**
 * The SQL of the derived views {@code latency}, {@code sched_latency}, {@code thread_state} and the
 * table macro {@code event_rate}, built from whichever event types the attached stores hold
 * ({@link Events}).
 */
final class DerivedViews {
    private DerivedViews() {
    }

    /** The columns of {@code latency}, in order, with their types. */
    static final String LATENCY_COLUMNS = "host VARCHAR, kind VARCHAR, pid INTEGER, comm VARCHAR, waker_pid INTEGER,"
            + " cpu INTEGER, id BIGINT, name VARCHAR, result BIGINT, start_frame BIGINT, start_ts BIGINT, frame BIGINT,"
            + " ts BIGINT, latency BIGINT";

    /**
     * Creates {@code latency}: one row per pair {@link org.tracewire.analysis.LatencyTracker} makes
     * when fed the records in file order (frame order per host), of every kind whose events the
     * stores hold: {@code sched_wakeup}, {@code syscall}, {@code irq}, {@code softirq}. An event
     * whose typed table lacks a field the pairing reads is left out (as the tracker ignores its
     * records), noted in {@code missing}; with none of the events, the view is empty and typed.
     *
     * @param s       a statement of the store's connection
     * @param ev      the event types held
     * @param missing receives what was left out, and why
     * @throws SQLException when the view cannot be created
     */
    static void createLatency(Statement s, Events ev, Map<String, String> missing) throws SQLException {
        List<String> parts = new ArrayList<>();
        // wakeup -> running
        List<String> wakeups = new ArrayList<>();
        for (String w : List.of("sched:sched_wakeup", "sched:sched_wakeup_new")) {
            add(ev, wakeups, w, "SELECT host, frame, ts, pid AS task, comm, common_pid AS waker_pid,"
                    + " target_cpu, 0 AS k FROM $R", missing, "pid", "comm", "target_cpu");
        }
        List<String> switches = new ArrayList<>();
        add(ev, switches, "sched:sched_switch", "SELECT host, frame, ts,"
                + " next_pid AS task, NULL, NULL, common_cpu, 1 AS k FROM $R", missing, "next_pid");
        if (!wakeups.isEmpty() && !switches.isEmpty()) {
            parts.add(SCHED_PAIRS.replace("$ROWS", String.join(" UNION ALL ", wakeups) + " UNION ALL " + switches.get(0)));
        }
        // raw_syscalls: sys_enter -> sys_exit of a task, same id
        List<String> raw = new ArrayList<>();
        add(ev, raw, "raw_syscalls:sys_enter", "SELECT host, frame, ts,"
                + " common_pid AS pid, common_cpu AS cpu, id::BIGINT AS id, NULL::VARCHAR AS name,"
                + " NULL::BIGINT AS ret, true AS enter FROM $R", missing, "id");
        add(ev, raw, "raw_syscalls:sys_exit", "SELECT host, frame, ts,"
                + " common_pid, common_cpu, id::BIGINT, NULL, ret::BIGINT, false FROM $R", missing, "id", "ret");
        pairs(parts, raw, "syscall", "host, pid", "ret", true);
        // syscalls:sys_enter_X -> sys_exit_X of a task, same number and call
        List<String> sys = syscallRows(ev, missing);
        pairs(parts, sys, "syscall", "host, pid", "ret", true);
        // irq: entry -> exit per CPU and irq
        List<String> irq = new ArrayList<>();
        add(ev, irq, "irq:irq_handler_entry", "SELECT host, frame, ts,"
                + " common_pid AS pid, common_cpu AS cpu, irq::BIGINT AS id, name::VARCHAR AS name,"
                + " NULL::BIGINT AS ret, true AS enter FROM $R", missing, "irq", "name");
        add(ev, irq, "irq:irq_handler_exit", "SELECT host, frame, ts,"
                + " common_pid, common_cpu, irq::BIGINT, NULL, ret::BIGINT, false FROM $R", missing, "irq", "ret");
        pairs(parts, irq, "irq", "host, cpu, id", "ret", false);
        // softirq: entry -> exit per CPU and vector
        List<String> soft = new ArrayList<>();
        add(ev, soft, "irq:softirq_entry", "SELECT host, frame, ts,"
                + " common_pid AS pid, common_cpu AS cpu, vec::BIGINT AS id, " + SOFTIRQ_NAME + " AS name,"
                + " NULL::BIGINT AS ret, true AS enter FROM $R", missing, "vec");
        add(ev, soft, "irq:softirq_exit", "SELECT host, frame, ts,"
                + " common_pid, common_cpu, vec::BIGINT, NULL, NULL, false FROM $R", missing, "vec");
        pairs(parts, soft, "softirq", "host, cpu, id", "0", false);

        StringBuilder body = new StringBuilder();
        for (String p : parts) {
            body.append(body.length() == 0 ? "" : " UNION ALL ").append("SELECT ").append(casts()).append(" FROM (")
                    .append(p).append(")");
        }
        if (parts.isEmpty()) {
            body.append("SELECT ").append(casts()).append(" FROM (SELECT ").append(nulls()).append(") WHERE false");
        }
        s.execute("CREATE OR REPLACE VIEW latency AS " + body);
    }

    /**
     * The rows of each {@code syscalls:sys_enter_X} / {@code sys_exit_X} event held, as latency
     * part rows ({@code id}: the syscall number, {@code name}: the call), one SELECT per event over
     * {@code $R}; an event whose format lacks a field read is noted in {@code missing}.
     */
    private static List<String> syscallRows(Events ev, Map<String, String> missing) {
        List<String> sys = new ArrayList<>();
        for (String e : ev.names()) {
            int colon = e.indexOf(':');
            String system = e.substring(0, colon);
            String name = e.substring(colon + 1);
            String call = SyscallEvents.callName(name);
            if (!system.equals("syscalls") || call == null) {
                continue;
            }
            boolean enter = SyscallEvents.isEnter(name);
            add(ev, sys, e, "SELECT host, frame, ts, common_pid AS pid, common_cpu AS cpu,"
                    + " __syscall_nr::BIGINT AS id, " + Sql.literal(call) + " AS name, "
                    + (enter ? "NULL::BIGINT" : "ret::BIGINT") + " AS ret, " + enter + " AS enter FROM $R", missing,
                    enter ? new String[] {"__syscall_nr"} : new String[] {"__syscall_nr", "ret"});
        }
        return sys;
    }

    /** The select list that gives every column of a latency part its type, in order. */
    private static String casts() {
        StringBuilder sb = new StringBuilder();
        for (String c : LATENCY_COLUMNS.split(", ")) {
            String[] nt = c.split(" ");
            sb.append(sb.length() == 0 ? "" : ", ").append(nt[0]).append("::").append(nt[1]).append(" AS ").append(nt[0]);
        }
        return sb.toString();
    }

    private static String nulls() {
        StringBuilder sb = new StringBuilder();
        for (String c : LATENCY_COLUMNS.split(", ")) {
            sb.append(sb.length() == 0 ? "" : ", ").append("NULL AS ").append(c.split(" ")[0]);
        }
        return sb.toString();
    }

    /**
     * Adds {@code select} over the event's relation (for {@code $R}) to {@code to} when the stores
     * hold the event with the fields the select reads ({@code needs}); else, when they hold it,
     * notes which field is missing in {@code missing}.
     */
    private static void add(Events ev, List<String> to, String event, String select, Map<String, String> missing,
                            String... needs) {
        String rel = ev.relation(event);
        if (rel == null) {
            return;
        }
        Set<String> have = ev.columns(event);
        for (String f : needs) {
            if (!have.contains(f)) {
                missing.put("latency pairs of " + event, "its format has no field " + f);
                return;
            }
        }
        to.add(select.replace("$R", rel));
    }

    /** The event types the attached stores hold. */
    interface Events {
        /** Every event ({@code system:event}) held. */
        Set<String> names();

        /** An event's rows over every source ({@code host} first), in parentheses; null when not held. */
        String relation(String event);

        /** The columns of an event's typed tables (in any source); empty when not held. */
        Set<String> columns(String event);
    }

    /**
     * Adds the pairs of one start/end space to {@code parts}: each end record whose predecessor in
     * its partition (in frame order) is a start record, as the tracker keeps one pending start per
     * key and any later record of the key replaces or consumes it.
     *
     * @param rows      start and end rows: host, frame, ts, pid, cpu, id, name, ret, enter
     * @param partition the tracker's key
     * @param result    the result's expression over the end row
     * @param sameCall  whether start and end must also agree on id and name (syscalls)
     */
    private static void pairs(List<String> parts, List<String> rows, String kind, String partition, String result,
                              boolean sameCall) {
        if (rows.isEmpty()) {
            return;
        }
        parts.add("SELECT host, " + Sql.literal(kind) + " AS kind, p_pid AS pid, NULL AS comm, NULL AS waker_pid,"
                + " p_cpu AS cpu, id, p_name AS name, " + result + " AS result, p_frame AS start_frame,"
                + " p_ts AS start_ts, frame, ts, ts - p_ts AS latency"
                + " FROM (SELECT *, lag(enter) OVER w AS p_enter, lag(frame) OVER w AS p_frame, lag(ts) OVER w AS p_ts,"
                + " lag(pid) OVER w AS p_pid, lag(cpu) OVER w AS p_cpu, lag(id) OVER w AS p_id,"
                + " lag(name) OVER w AS p_name FROM (" + String.join(" UNION ALL ", rows) + ")"
                + " WINDOW w AS (PARTITION BY " + partition + " ORDER BY frame))"
                + " WHERE NOT enter AND p_enter AND ts >= p_ts"
                + (sameCall ? " AND p_id = id AND p_name IS NOT DISTINCT FROM name" : ""));
    }

    /** A softirq vector's name as {@code softirq_to_name} in {@code kernel/softirq.c}; {@code vec N} beyond. */
    private static final String SOFTIRQ_NAME = "coalesce(['HI', 'TIMER', 'NET_TX', 'NET_RX', 'BLOCK', 'IRQ_POLL',"
            + " 'TASKLET', 'SCHED', 'HRTIMER', 'RCU'][CASE WHEN vec < 10 THEN vec::BIGINT + 1 END],"
            + " 'vec ' || vec)";

    /**
     * Wakeup → running over {@code $ROWS} (wakeups {@code k = 0}, switches {@code k = 1}: host,
     * frame, ts, task, comm, waker_pid, target_cpu, k), in frame order per host and task: the first
     * wakeup since the task's last switch-in (a wakeup right after a switch-in, or the task's first
     * record) pairs with its next switch-in; later wakeups while one is pending are ignored; a
     * switch earlier than its wakeup gives no pair. Windows only: the segment-opening wakeups and
     * the switches are kept, and a switch pairs with the wakeup before it.
     */
    private static final String SCHED_PAIRS = """
            WITH w AS ($ROWS),
            m AS (
              SELECT *, lag(k) OVER (PARTITION BY host, task ORDER BY frame) AS pk FROM w
            ), f AS (
              SELECT *, lag({'k': k, 'frame': frame, 'ts': ts, 'comm': comm, 'waker_pid': waker_pid,
                     'cpu': target_cpu}) OVER (PARTITION BY host, task ORDER BY frame) AS fw
              FROM m WHERE k = 1 OR coalesce(pk, 1) = 1
            )
            SELECT host, 'sched_wakeup' AS kind, task AS pid, fw.comm, fw.waker_pid, fw.cpu AS cpu,
                   NULL AS id, NULL AS name, target_cpu AS result, fw.frame AS start_frame, fw.ts AS start_ts,
                   frame, ts, ts - fw.ts AS latency
            FROM f WHERE k = 1 AND fw.k = 0 AND ts >= fw.ts""";

    /** {@code sched_latency}: the {@code sched_wakeup} rows of {@code latency} under their former names. */
    static final String SCHED_LATENCY = """
            CREATE OR REPLACE VIEW sched_latency AS
            SELECT host, pid, comm, waker_pid, cpu AS target_cpu, start_frame AS wakeup_frame, start_ts AS wakeup_ts,
                   frame, ts, result::INTEGER AS cpu, latency
            FROM latency WHERE kind = 'sched_wakeup'""";

    /**
     * The DDL of {@code thread_state} from {@code sched_switch} and the wakeups: per task (pid, idle
     * excluded) its transitions in time order (ts, frame): switched in → {@code Running} on the
     * switch's CPU; switched out → {@code R} when runnable (preempted), else the sleep state
     * {@code task_state(prev_state)}; taken off its CPU by a switch that names another
     * {@code prev_pid} (the capture misses events) → NULL, unknown; a wakeup → {@code R} when the task
     * sleeps, its state is unknown or nothing is known of it yet, ignored while it runs or is
     * runnable. Each interval lasts to the task's next transition (a Running one thus ends where its
     * {@code sched_slice} ends); the last has {@code dur} NULL. Empty and typed without
     * {@code sched_switch}.
     *
     * @param ev the event types held
     */
    static String threadState(Events ev) {
        String sw = ev.relation("sched:sched_switch");
        if (sw == null) {
            return "CREATE OR REPLACE VIEW thread_state AS SELECT NULL::VARCHAR AS host, NULL::BIGINT AS ts, NULL::BIGINT AS dur,"
                    + " NULL::INTEGER AS pid, NULL::VARCHAR AS comm, NULL::VARCHAR AS state, NULL::INTEGER AS cpu"
                    + " WHERE false";
        }
        List<String> wakeups = new ArrayList<>();
        for (String w : List.of("sched:sched_wakeup", "sched:sched_wakeup_new")) {
            if (ev.relation(w) != null && ev.columns(w).containsAll(List.of("pid", "comm"))) {
                wakeups.add(ev.relation(w));
            }
        }
        StringBuilder wakes = new StringBuilder();
        for (String w : wakeups) {
            wakes.append(" UNION ALL SELECT host, frame, ts, 2, pid, comm, 'R', NULL FROM ").append(w);
        }
        return THREAD_STATE.replace("$SWITCH", sw).replace("$WAKEUPS", wakes);
    }

    /**
     * Transitions (o: 0 switched out, 1 switched in, 2 woken), a switch-out also for the task the
     * CPU's previous switch put on it when this switch names another {@code prev_pid} (events
     * missing: state unknown, NULL); a wakeup is kept when it is the task's first transition or
     * follows a switch-out into a sleep state or an unknown one.
     */
    private static final String THREAD_STATE = """
            CREATE OR REPLACE VIEW thread_state AS
            WITH sw AS (
              SELECT host, frame, ts, common_cpu, prev_pid, prev_comm, prev_state, next_pid, next_comm,
                     lag(next_pid) OVER c AS on_cpu, lag(next_comm) OVER c AS on_cpu_comm
              FROM $SWITCH WINDOW c AS (PARTITION BY host, common_cpu ORDER BY ts, frame)
            ), t AS (
              SELECT host, frame, ts, 1 AS o, next_pid AS pid, next_comm AS comm, 'Running' AS state,
                     common_cpu AS cpu FROM sw
              UNION ALL SELECT host, frame, ts, 0, prev_pid, prev_comm, CASE WHEN (prev_state & 255) = 0
                     THEN 'R' ELSE task_state(prev_state) END, NULL FROM sw
              UNION ALL SELECT host, frame, ts, 0, on_cpu, on_cpu_comm, NULL, NULL FROM sw
                     WHERE on_cpu <> prev_pid
              $WAKEUPS
            ), k AS (
              SELECT *, lag(o) OVER w AS p_o, lag(state) OVER w AS p_state FROM t WHERE pid <> 0
              WINDOW w AS (PARTITION BY host, pid ORDER BY ts, frame, o)
            ), kept AS (
              SELECT host, frame, ts, o, pid, comm, state, cpu FROM k
              WHERE o < 2 OR p_o IS NULL OR (p_o = 0 AND (p_state IS NULL OR p_state <> 'R'))
            )
            SELECT host::VARCHAR AS host, ts::BIGINT AS ts, (lead(ts) OVER w - ts)::BIGINT AS dur,
                   pid::INTEGER AS pid, comm::VARCHAR AS comm, state::VARCHAR AS state, cpu::INTEGER AS cpu
            FROM kept WINDOW w AS (PARTITION BY host, pid ORDER BY ts, frame, o)""";

    /**
     * {@code event_rate(interval_ns)}: events per interval for an I/O graph: per host, bucket start
     * {@code ts} (a multiple of {@code interval_ns} in the events' {@code ts} clock), cpu and event,
     * the {@code count}; buckets without events have no row. An interval ≤ 0 is an error.
     */
    static final String EVENT_RATE = """
            CREATE OR REPLACE MACRO event_rate(interval_ns) AS TABLE
            SELECT host, (ts - ((ts % interval_ns) + interval_ns) % interval_ns)::BIGINT AS ts, cpu, event,
                   count(*) AS count
            FROM events
            WHERE CASE WHEN interval_ns > 0 THEN true ELSE error('event_rate: interval_ns must be > 0, not '
                  || interval_ns) END
            GROUP BY ALL""";
}
