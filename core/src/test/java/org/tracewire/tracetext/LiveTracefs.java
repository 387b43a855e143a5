package org.tracewire.tracetext;

import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsException;

final class LiveTracefs {
    private LiveTracefs() {
    }

    static Tracefs require() {
        try {
            return Tracefs.live();
        } catch (TracefsException e) {
            if ("true".equals(System.getenv("CI"))) {
                Assertions.fail("CI=true and the live tracefs is missing: " + e.getMessage());
            }
            Assumptions.abort("needs root and tracefs: " + e.getMessage());
            return null;
        }
    }
}
