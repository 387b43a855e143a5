package org.tracewire.app.capture;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

/**
 * The stack traces recorded with an event ({@code capture --stack}) from the store's
 * {@code stack_of} table macro (its {@code stack} view's rows for one event, without joining every
 * event), kernel stack first, innermost call first.
 */
final class StoreStacks {
    /**
     * Frames of a stack record that can lie between an event and its stack: the kernel writes the
     * stack right after its event on the same CPU, with the same time stamp, so only other CPUs'
     * events of that instant and context frames come between (a bound on the scan, not a cut).
     */
    static final int STACK_REACH = 4096;

    private StoreStacks() {
    }

    /**
     * The stack frames of the event of a frame.
     *
     * @param db    a connection to the store's database (its owner's thread)
     * @param frame the event's packet number
     * @return the frames; empty when the event has no stack or the store cannot say (no stack records)
     */
    static List<EventDetailTree.StackFrame> of(Connection db, long frame) {
        List<EventDetailTree.StackFrame> out = new ArrayList<>();
        try (PreparedStatement ps = db.prepareStatement("SELECT kind, depth, address, func, module"
                + " FROM stack_of(?, ?) ORDER BY kind, depth")) {
            ps.setLong(1, frame);
            ps.setLong(2, STACK_REACH);
            try (ResultSet rs = ps.executeQuery()) {
                while (rs.next()) {
                    out.add(new EventDetailTree.StackFrame(rs.getString(1), rs.getInt(2), rs.getLong(3),
                            rs.getString(4), rs.getString(5)));
                }
            }
        } catch (SQLException e) {
            out.clear(); // a store without stack records: no stack to show
        }
        return out;
    }
}
