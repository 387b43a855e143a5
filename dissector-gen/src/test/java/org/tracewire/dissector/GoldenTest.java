package org.tracewire.dissector;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.tracewire.format.EventFormat;

/**
 * Golden files: the generated header and event tables for a few events of the snapshot, exact
 * text. Refresh on purpose only: {@code mvn test -Dtracewire.golden.update=true -Dtest=GoldenTest}
 * (writes {@code dissector-gen/src/test/resources/org/tracewire/dissector/golden/}).
 */
class GoldenTest {
    static final String DIR = "dissector-gen/src/test/resources/org/tracewire/dissector/golden";

    @ParameterizedTest
    @ValueSource(strings = {"sched:sched_switch", "sched:sched_wakeup", "syscalls:sys_enter_openat",
        "irq:softirq_entry", "timer:hrtimer_start", "kmem:mm_page_alloc", "block:block_rq_issue"})
    void generatedTablesMatchTheGoldenFile(String event) throws Exception {
        EventFormat f = Tools.catalog().byName(event);
        String lua = new DissectorGenerator(Tools.catalog(), Tools.layout(), "snapshots/linux-6.18")
                .generate(List.of(f)).lua();
        int b = lua.indexOf(DissectorGenerator.BEGIN);
        int e = lua.indexOf(DissectorGenerator.END);
        String header = lua.substring(0, lua.indexOf("\n\n") + 1);
        String got = header + lua.substring(b, e + DissectorGenerator.END.length());
        String file = event.replace(':', '_') + ".lua";
        Path golden = Path.of(System.getProperty("tracewire.repo", ".."), DIR, file);
        if (Boolean.parseBoolean(System.getProperty("tracewire.golden.update"))) {
            Files.createDirectories(golden.getParent());
            Files.writeString(golden, got, StandardCharsets.UTF_8);
        }
        assertTrue(Files.exists(golden), "missing golden file " + golden + " (refresh with -Dtracewire.golden.update=true)");
        assertEquals(Files.readString(golden, StandardCharsets.UTF_8), got,
                "generated Lua for " + event + " changed; refresh on purpose with -Dtracewire.golden.update=true");
    }
}
