package org.tracewire.backend;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.File;
import org.junit.jupiter.api.Test;

/**
 * The capture processes (capture, extcap, backend) never carry the capture store's database: the
 * class path of this module's tests (its runtime dependencies plus test-only ones) holds no DuckDB
 * and no store module, so neither does the backend's ({@code capture-backend/target/lib}).
 */
class NoStoreOnClassPathTest {
    @Test
    void duckdbAndTheStoreAreNotOnTheClassPath() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.duckdb.DuckDBDriver"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.tracewire.store.CaptureStore"));
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = new File(entry).getName();
            assertFalse(name.startsWith("duckdb") || name.startsWith("tracewire-store"), entry);
        }
    }
}
