package org.tracewire.tracefs;

import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Objects;
import java.util.Set;

/**
 * One event to capture, its kernel filter and the stack traces recorded with it: the one model of
 * an event with its filter. The command line gives it ({@code -e SYSTEM:EVENT [-f FILTER]
 * [--stack[=kernel|user|both]]}), the capture library captures it, and the backend protocol
 * carries it as {@code Messages.CaptureEvent}, its JSON form (field names fixed by the protocol;
 * {@code CaptureEvent.of} and {@code toSelection} convert, and check, in one place). The app's
 * capture list holds these, and its saved sessions keep them in that JSON form.
 *
 * @param system the event's system, e.g. {@code sched}
 * @param event  the event name, e.g. {@code sched_switch}
 * @param filter kernel event-filter text, or null for none
 * @param stack  the stack traces recorded after each of its events ({@link Stack#NONE} for none)
 */
public record EventSelection(String system, String event, String filter, Stack stack) {
    /**
     * The stack traces a capture records after an event ({@code docs/stacks.md}). A kernel stack is
     * the event's {@code stacktrace} trigger (with the event's filter as its {@code if}, so only
     * recorded events pay): an {@code ftrace:kernel_stack} record after the event, same CPU. A user
     * stack is the instance's {@code options/userstacktrace}, which the kernel applies to every event
     * of the capture: an {@code ftrace:user_stack} record after each.
     */
    public enum Stack {
        /** No stack traces. */
        NONE,
        /** The kernel stack ({@code stacktrace} trigger). */
        KERNEL,
        /** The user stack ({@code options/userstacktrace}: capture-wide). */
        USER,
        /** Both. */
        BOTH;

        /** True for {@link #KERNEL} and {@link #BOTH}. */
        public boolean kernel() {
            return this == KERNEL || this == BOTH;
        }

        /** True for {@link #USER} and {@link #BOTH}. */
        public boolean user() {
            return this == USER || this == BOTH;
        }

        /**
         * Parses {@code kernel}, {@code user}, {@code both} or {@code none} (any case).
         *
         * @throws IllegalArgumentException for any other word, naming the ones allowed
         */
        public static Stack parse(String word) {
            try {
                return valueOf(word.strip().toUpperCase(Locale.ROOT));
            } catch (IllegalArgumentException | NullPointerException e) {
                throw new IllegalArgumentException("stack '" + word + "' is not kernel, user, both or none");
            }
        }

        /** The word {@link #parse} reads. */
        public String word() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    public EventSelection {
        Objects.requireNonNull(system, "system");
        Objects.requireNonNull(event, "event");
        stack = stack == null ? Stack.NONE : stack;
    }

    /** An event without stack traces. */
    public EventSelection(String system, String event, String filter) {
        this(system, event, filter, Stack.NONE);
    }

    /**
     * Parses {@code SYSTEM:EVENT} ({@link EventSelector#parseEvent}).
     *
     * @throws IllegalArgumentException when it is not one colon between two plain names
     */
    public static EventSelection parse(String spec, String filter) {
        return parse(spec, filter, Stack.NONE);
    }

    /**
     * Parses {@code SYSTEM:EVENT} ({@link EventSelector#parseEvent}), with stack traces.
     *
     * @throws IllegalArgumentException when it is not one colon between two plain names
     */
    public static EventSelection parse(String spec, String filter, Stack stack) {
        EventSelector s = EventSelector.parseEvent(spec);
        return new EventSelection(s.system(), s.event(), filter, stack);
    }

    /** The same event with another filter (the stack choice kept). */
    public EventSelection withFilter(String newFilter) {
        return new EventSelection(system, event, newFilter, stack);
    }

    /** The kernel's record of a kernel stack trace ({@code events/ftrace/kernel_stack/format}). */
    public static final String KERNEL_STACK = "ftrace:kernel_stack";
    /** The kernel's record of a user stack trace ({@code events/ftrace/user_stack/format}). */
    public static final String USER_STACK = "ftrace:user_stack";

    /**
     * The events whose records a capture of these selections holds: the selections, then
     * {@link #KERNEL_STACK} and {@link #USER_STACK} when a selection asks for those stacks (not
     * enabled themselves: the trigger and the option write them), each once.
     */
    public static List<EventSelection> recorded(List<EventSelection> selections) {
        List<EventSelection> out = new ArrayList<>(selections);
        Set<String> names = new HashSet<>();
        selections.forEach(e -> names.add(e.fullName()));
        boolean kernel = selections.stream().anyMatch(e -> e.stack().kernel());
        boolean user = selections.stream().anyMatch(e -> e.stack().user());
        if (kernel && names.add(KERNEL_STACK)) {
            out.add(parse(KERNEL_STACK, null));
        }
        if (user && names.add(USER_STACK)) {
            out.add(parse(USER_STACK, null));
        }
        return out;
    }

    /** {@code system:event}. */
    public String fullName() {
        return system + ":" + event;
    }
}
