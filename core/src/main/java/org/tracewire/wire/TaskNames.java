package org.tracewire.wire;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.wire.ContextPlanner.Naming;
import org.tracewire.wire.ContextPlanner.Sources;
import org.tracewire.wire.ContextPlanner.Task;

/**
 * The PROCESS side of the {@link ContextPlanner}: the tasks described so far ({@link TaskTable},
 * with the raw comm bytes last seen for each, so an unchanged name costs no string), the rules that
 * name a task from a record (its comm fields, {@code sched_process_exec}'s file, else the
 * {@link Sources}' tasks; {@link Naming#FILE}: the file's names only), and the PROCESS message being
 * built for the current event. Past the task cap new tasks are counted in {@link #dropped()}.
 * Not thread-safe.
 */
final class TaskNames {
    private final Sources ctx;
    private final KernelLayout layout;
    private final PayloadReads reads;
    private final boolean fileNaming;
    private final TaskTable tasks;
    private final PendingMessage pending = new PendingMessage(FrameKind.PROCESS);
    private long dropped;

    TaskNames(Sources ctx, PayloadReads reads, int maxTasks) {
        this.ctx = ctx;
        this.layout = ctx.layout();
        this.reads = reads;
        this.fileNaming = ctx.naming() == Naming.FILE;
        this.tasks = new TaskTable(maxTasks);
    }

    /** True when the task with this pid was described. */
    boolean known(int pid) {
        return tasks.slot(pid) >= 0;
    }

    /** Describes the task with this pid from the {@link Sources} when it is not yet. */
    void ensure(int pid) {
        if (tasks.slot(pid) < 0) {
            task(pid, -1, null, 0, 0, false);
        }
    }

    /** Tasks described so far. */
    int size() {
        return tasks.size();
    }

    /** Tasks not described because the cap was reached. */
    long dropped() {
        return dropped;
    }

    /** Calls {@code action} with every task described so far, as last sent. */
    void forEach(ContextPlanner.TaskAction action) {
        tasks.forEach(slot -> action.accept(tasks.pid(slot), tasks.tgid(slot), tasks.comm(slot)));
    }

    /** The PROCESS message of what was described since the last call, or null when nothing. */
    ContextMessage take() {
        return pending.take();
    }

    /** Every task described so far, as PROCESS messages of at most {@code perMessage} tasks (for repeats). */
    List<ContextMessage> all(int perMessage) {
        ContextMessage.Builder[] b = {ContextMessage.builder(FrameKind.PROCESS)};
        int[] n = {0};
        List<ContextMessage> procs = new ArrayList<>();
        tasks.forEach(slot -> {
            b[0].task(tasks.pid(slot), tasks.tgid(slot), tasks.comm(slot));
            if (++n[0] == perMessage) {
                procs.add(b[0].build());
                b[0] = ContextMessage.builder(FrameKind.PROCESS);
                n[0] = 0;
            }
        });
        if (!b[0].isEmpty()) {
            procs.add(b[0].build());
        }
        return procs;
    }

    /** The tasks a record names: new ones, and known ones under another name (comm fields, exec). */
    void names(ContextPlan p, ByteBuffer buf, int payload, int length) {
        if (fileNaming) {
            fileNames(p, buf, payload, length);
            return;
        }
        for (int i = 0; i < p.pidOffsets.length; i++) {
            int off = p.pidOffsets[i];
            if (off + 4 > length) {
                continue;
            }
            int pid = (int) reads.read(buf, payload + off, 4);
            int commOff = p.commOffsets[i];
            if (commOff < -1) {
                dataLocNamed(pid, buf, payload, length, -commOff - 2);
            } else {
                fixedNamed(pid, buf, payload, length, commOff);
            }
        }
        if (p.execPid >= 0 && p.execPid + 4 <= length) {
            exec((int) reads.read(buf, payload + p.execPid, 4), buf, payload, length, p);
        }
    }

    /** A task named by a fixed 16-byte comm field at {@code commOff} (-1: none). */
    private void fixedNamed(int pid, ByteBuffer buf, int payload, int length, int commOff) {
        int slot = tasks.slot(pid);
        boolean hasComm = commOff >= 0 && commOff + 16 <= length;
        if (slot >= 0 && (!hasComm || pid == 0)) {
            return;
        }
        long r0 = 0;
        long r1 = 0;
        if (hasComm) {
            r0 = buf.getLong(payload + commOff);
            r1 = buf.getLong(payload + commOff + 8);
            if (slot >= 0 && tasks.sameRaw(slot, r0, r1)) {
                return;
            }
        }
        task(pid, slot, hasComm ? PayloadReads.comm(buf, payload + commOff, 16) : null, r0, r1, hasComm);
    }

    /** A task named by a {@code __data_loc} string field whose locator sits at {@code locOff}. */
    private void dataLocNamed(int pid, ByteBuffer buf, int payload, int length, int locOff) {
        int slot = tasks.slot(pid);
        int at = reads.dataLoc(buf, payload, length, locOff);
        if (at < 0 || pid == 0) {
            if (slot < 0) {
                task(pid, -1, null, 0, 0, false);
            }
            return;
        }
        // the name's first 16 bytes, NUL-padded, packed as a fixed comm field's getLong()s would be
        long r0 = 0;
        long r1 = 0;
        boolean little = buf.order() == ByteOrder.LITTLE_ENDIAN;
        for (int k = 0; k < 16 && at + k < length; k++) {
            long b = buf.get(payload + at + k) & 0xffL;
            if (b == 0) {
                break;
            }
            int shift = little ? 8 * (k & 7) : 56 - 8 * (k & 7);
            if (k < 8) {
                r0 |= b << shift;
            } else {
                r1 |= b << shift;
            }
        }
        if (slot >= 0 && tasks.sameRaw(slot, r0, r1)) {
            return;
        }
        task(pid, slot, PayloadReads.comm(buf, payload + at, Math.min(16, length - at)), r0, r1, true);
    }

    /**
     * {@link Naming#FILE}: every task the record names ({@code TaskFields}, the
     * recording task first), each once, as the file's names say.
     */
    private void fileNames(ContextPlan p, ByteBuffer buf, int payload, int length) {
        for (int off : p.allPidOffsets) {
            if (off + 4 <= length) {
                ensure((int) reads.read(buf, payload + off, 4));
            }
        }
    }

    private void task(int pid, int slot, String comm, long r0, long r1, boolean fromRecord) {
        String name = comm;
        int tgid;
        if (slot >= 0) {
            // a known task with another name in this record
            if (comm.equals(tasks.comm(slot))) {
                tasks.setRaw(slot, r0, r1);
                return;
            }
            tgid = tasks.tgid(slot);
        } else {
            if (fileNaming && pid <= 0) {
                return; // the file's text names pid 0 itself
            }
            if (tasks.full()) {
                dropped++;
                return;
            }
            Task t = ctx.tasks().lookup(pid);
            if (fileNaming && t == null) {
                return; // unknown to the file: not described
            }
            tgid = t == null ? -1 : t.tgid();
            if (name == null) {
                name = t == null ? "<...>" : t.comm();
            }
            if (pid == 0) {
                name = "<idle>";
                tgid = 0;
            }
        }
        int s = tasks.put(pid, tgid, name);
        if (fromRecord && s >= 0) {
            tasks.setRaw(s, r0, r1);
        }
        pending.builder().task(pid, tgid, name);
    }

    /** {@code sched_process_exec}: the task's name is now its new program's. */
    private void exec(int pid, ByteBuffer buf, int payload, int length, ContextPlan p) {
        // the kernel names the task after the file's last path component (begin_new_exec in
        // fs/exec.c): the record says it as of its time; /proc may already say a later name
        String name = p.execFile == null ? null : execName(buf, payload, length, p);
        Task t = null;
        if (name == null) {
            t = ctx.tasks().running(pid); // no cache: a cached name may be the pid's former holder's
            name = t == null ? null : t.comm();
        }
        if (name == null) {
            return;
        }
        int slot = tasks.slot(pid);
        if (slot >= 0 && name.equals(tasks.comm(slot))) {
            return;
        }
        int tgid = t != null ? t.tgid() : pid; // after exec the task leads its thread group (de_thread)
        if (slot < 0 && tasks.full()) {
            dropped++;
            return;
        }
        int s = tasks.put(pid, tgid, name);
        if (s >= 0) {
            tasks.setRaw(s, 0, 0);
        }
        pending.builder().task(pid, tgid, name);
    }

    /** The name an exec record's file gives its task (at most 15 bytes), or null when it gives none. */
    private String execName(ByteBuffer buf, int payload, int length, ContextPlan p) {
        byte[] copy = new byte[length];
        buf.get(payload, copy);
        try {
            String file = new EventRecord(p.format, layout, -1, 0, ByteBuffer.wrap(copy).order(layout.byteOrder()))
                    .string(p.execFile);
            if (file.startsWith("/dev/fd/")) {
                return null; // fexecve: the kernel names it after the file's dentry, which the record lacks
            }
            String name = file.substring(file.lastIndexOf('/') + 1);
            byte[] utf8 = name.getBytes(StandardCharsets.UTF_8);
            return utf8.length > 15 ? new String(Arrays.copyOf(utf8, 15), StandardCharsets.UTF_8) : name;
        } catch (RuntimeException e) {
            return null;
        }
    }
}
