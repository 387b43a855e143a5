package org.tracewire.posix;

import com.sun.jna.LastErrorException;

/**
 * A thread's scheduling weight: Linux keeps a nice value per thread ({@code setpriority(2)} with
 * {@code PRIO_PROCESS} and a thread id, sched(7) "The nice value"), which threads it creates inherit
 * (native ones too, e.g. a database's workers started from it). Background work of an interactive
 * process runs at {@link #BACKGROUND}, so the scheduler runs the UI thread first when CPUs are short.
 */
public final class ThreadPriority {
    /** The nice value of background work: 10 (a CFS weight of 110 against 1,024 at nice 0). */
    public static final int BACKGROUND = 10;

    private ThreadPriority() {
    }

    /**
     * Sets the calling thread's nice value.
     *
     * @param nice −20..19; a lower value than the thread's needs CAP_SYS_NICE
     * @return true when set; false when the system refused or has no such call (not Linux): the
     *         thread then runs at its old priority
     */
    public static boolean setCurrent(int nice) {
        try {
            Posix.setpriority(Posix.PRIO_PROCESS, CpuAffinity.currentThreadId(), nice);
            return true;
        } catch (LastErrorException | IllegalStateException | LinkageError e) {
            return false;
        }
    }
}
