package org.tracewire.capture;

/**
 * The task names a capture sent before the file it writes now, for the fresh {@link ContextTracker}
 * that starts each file of a ring ({@link RingOutput}): a task the new file sees first is named
 * as the capture named it last (from a record's comm, an exec, the host's lookup at the time),
 * so each file's text equals that of an unrotated capture. Names the capture did not know
 * ({@code <...>}) and tasks it never sent are looked up on the host again. At most
 * {@link ContextTracker#MAX_TASKS} tasks, the latest knowledge first. Not thread-safe.
 */
final class KnownTasks implements CaptureContext.Tasks {
    private static final String UNKNOWN = "<...>";
    private final TaskTable names;
    private final CaptureContext.Tasks host;

    private KnownTasks(TaskTable names, CaptureContext.Tasks host) {
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
    static KnownTasks after(CaptureContext.Tasks earlier, ContextTracker tracker) {
        TaskTable t = new TaskTable(ContextTracker.MAX_TASKS);
        tracker.forEachTask((pid, tgid, comm) -> {
            if (!UNKNOWN.equals(comm)) {
                t.put(pid, tgid, comm);
            }
        });
        CaptureContext.Tasks host = earlier;
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
    public CaptureContext.Task lookup(int pid) {
        int s = names.slot(pid);
        return s >= 0 ? new CaptureContext.Task(names.tgid(s), names.comm(s)) : host.lookup(pid);
    }

    /** The host's: an exec asks for the running task, never for a name kept from before. */
    @Override
    public CaptureContext.Task running(int pid) {
        return host.running(pid);
    }
}
