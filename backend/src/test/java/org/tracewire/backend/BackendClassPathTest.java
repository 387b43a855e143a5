package org.tracewire.backend;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.File;
import org.junit.jupiter.api.Test;
import org.tracewire.wire.description.EventDescription;

/**
 * The capture processes (capture library, backend) carry neither the capture store's database nor
 * the dissector generator with its Lua runtime: the class path of this module's tests (its runtime
 * dependencies plus test-only ones) holds no DuckDB, no store module, no dissector-gen and no GUI
 * library, so neither does the backend's ({@code backend/target/lib}). The event
 * description a capture writes (FORMAT item 4) comes from core.
 */
class BackendClassPathTest {
    @Test
    void noStoreNoGeneratorNoGuiOnTheClassPath() {
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.duckdb.DuckDBDriver"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.tracewire.store.CaptureStore"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("org.tracewire.dissector.DissectorGenerator"));
        assertThrows(ClassNotFoundException.class, () -> Class.forName("javafx.application.Platform"));
        assertNull(getClass().getClassLoader().getResource("org/tracewire/dissector/lua/runtime/00-params.lua"),
                "the Lua runtime");
        String description = EventDescription.class.getProtectionDomain().getCodeSource().getLocation().getPath();
        assertTrue(description.contains("tracewire-core") || description.contains("/core/target/"), description);
        for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
            String name = new File(entry).getName();
            assertFalse(name.startsWith("duckdb") || name.startsWith("tracewire-store")
                    || name.startsWith("tracewire-dissector-gen") || entry.contains("/dissector-gen/")
                    || name.startsWith("javafx"), entry);
        }
    }
}
