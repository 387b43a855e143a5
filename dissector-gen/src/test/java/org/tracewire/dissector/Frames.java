package org.tracewire.dissector;

import java.util.List;
import org.tracewire.record.EventRecord;
import org.tracewire.testing.FixtureRecords;
import org.tracewire.wire.MacAddress;

/** Records for tests: the real-kernel page fixture (core's {@link FixtureRecords}, time order). */
final class Frames {
    private Frames() {
    }

    /** The source MAC of the tests' Ethernet frames. */
    static final MacAddress SRC = MacAddress.forHost("tracewire-dissector-test");

    /** Records of the checked-in page fixture (captured from this 6.18 kernel), in time order. */
    static List<EventRecord> fixtureRecords() {
        return FixtureRecords.load();
    }
}
