package org.tracewire.record;

/**
 * A record whose bytes do not fit its event's format: a field or a {@code __data_loc} location
 * that points outside the record. Names the event and field.
 */
public class RecordException extends RuntimeException {
    /** @param message what and where, e.g. {@code "sched:sched_switch field prev_comm: ..."} */
    public RecordException(String message) {
        super(message);
    }
}
