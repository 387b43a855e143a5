package org.tracewire.format;

/**
 * The names of the {@code syscalls} system's trace events, one pair per system call:
 * {@code sys_enter_NAME} and {@code sys_exit_NAME}, where {@code NAME} is the call's name without
 * its {@code sys_} prefix ({@code SYSCALL_TRACE_ENTER_EVENT} / {@code SYSCALL_TRACE_EXIT_EVENT} in
 * {@code include/linux/syscalls.h}; the records are written by {@code kernel/trace/trace_syscalls.c}).
 * The one place that takes such a name apart: the kernel's text ({@code SyscallText}), latency
 * pairs ({@code LatencyTracker}) and the capture's self-exclusion warnings use it.
 */
public final class SyscallEvents {
    /** The prefix of an entry event's name. */
    public static final String ENTER_PREFIX = "sys_enter_";
    /** The prefix of an exit event's name. */
    public static final String EXIT_PREFIX = "sys_exit_";

    private SyscallEvents() {
    }

    /** True for {@code sys_enter_NAME} (a name that is only the prefix is not an event of a call). */
    public static boolean isEnter(String event) {
        return event.startsWith(ENTER_PREFIX) && event.length() > ENTER_PREFIX.length();
    }

    /** True for {@code sys_exit_NAME} (a name that is only the prefix is not an event of a call). */
    public static boolean isExit(String event) {
        return event.startsWith(EXIT_PREFIX) && event.length() > EXIT_PREFIX.length();
    }

    /**
     * The system call an event name is of: {@code sys_enter_write} and {@code sys_exit_write} →
     * {@code write}.
     *
     * @param event an event name without its system ({@code sys_enter_openat})
     * @return the call's name without {@code sys_}, or null when the name is neither an entry nor an
     *         exit event's
     */
    public static String callName(String event) {
        if (isEnter(event)) {
            return event.substring(ENTER_PREFIX.length());
        }
        if (isExit(event)) {
            return event.substring(EXIT_PREFIX.length());
        }
        return null;
    }
}
