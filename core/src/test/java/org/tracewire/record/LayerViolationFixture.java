package org.tracewire.record;

import java.io.IOException;
import org.tracewire.tracefs.Tracefs;

/** Test fixture for {@code CoreLayersTest}'s meta-test: a model class that reads tracefs (not allowed in main code). */
final class LayerViolationFixture {
    private LayerViolationFixture() {
    }

    static String readsTracefs(Tracefs tracefs) throws IOException {
        return tracefs.read("trace_clock");
    }
}
