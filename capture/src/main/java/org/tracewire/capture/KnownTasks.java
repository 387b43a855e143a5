package org.tracewire.capture;

import org.tracewire.wire.ContextPlanner;
import org.tracewire.wire.TaskTable;

/**
 * The task names a capture sent before the file it writes now, for the fresh {@link ContextPlanner}
 * that starts each file of a ring ({@link RingOutput}): a task the new file sees first is named
 * as the capture named it last (from a record's comm, an exec, the host's lookup at the time),
 * so each file's text equals that of an unrotated capture. Names the capture did not know
 * ({@code <...>}) and tasks it never sent are looked up on the host again. At most
 * {@link ContextPlanner#MAX_TASKS} tasks, the latest knowledge first. Not thread-safe.
 */
final class KnownTasks implements ContextPlanner.Tasks {
    private static final String UNKNOWN = "<...>";
    private final TaskTable names;
    private final ContextPlanner.Tasks host;

    private KnownTasks(TaskTable names, ContextPlanner.Tasks host) {
        this.names = names;
        this.host = host;
    }

    /**
     * What a capture knows after a file: the tasks {@code tracker} described, then those
     * {@code earlier} knew (for the files before), then the host's lookup.
     *
     * @param earlier the tasks the finished file's tracker was given (the host's, or a {@code KnownTasks})
     * @param tracker the finished file's tracker
     */
    static KnownTasks after(ContextPlanner.Tasks earlier, ContextPlanner tracker) {
        TaskTable t = new TaskTable(ContextPlanner.MAX_TASKS);
        tracker.forEachTask((pid, tgid, comm) -> {
            if (!UNKNOWN.equals(comm)) {
                t.put(pid, tgid, comm);
            }
        });
        ContextPlanner.Tasks host = earlier;
        if (earlier instanceof KnownTasks k) {
            host = k.host;
            k.names.forEach(s -> {
                if (t.slot(k.names.pid(s)) < 0) {
                    t.put(k.names.pid(s), k.names.tgid(s), k.names.comm(s));
                }
            });
        }
        return new KnownTasks(t, host);
    }

    /** Tasks named here (not counting the host's). */
    int size() {
        return names.size();
    }

    @Override
    public ContextPlanner.Task lookup(int pid) {
        int s = names.slot(pid);
        return s >= 0 ? new ContextPlanner.Task(names.tgid(s), names.comm(s)) : host.lookup(pid);
    }

    /** The host's: an exec asks for the running task, never for a name kept from before. */
    @Override
    public ContextPlanner.Task running(int pid) {
        return host.running(pid);
    }
}
