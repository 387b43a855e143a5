package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import java.nio.ByteOrder;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.format.EventFormat;
import org.tracewire.testing.Prerequisites;

/**
 * tshark accepts every display filter the compiler produces: the field names are registered by a
 * throwaway Lua script generated from the formats ({@link Tools#lua}).
 */
@Tag("tshark")
class DisplayFilterTsharkTest {

    @Test
    void tsharkAcceptsTheDisplayFilters(@TempDir Path dir) throws Exception {
        Path tshark = Prerequisites.requireTool("tshark");
        List<EventFormat> formats = Events.NAMES.stream().map(Events::get).toList();
        Path lua = dir.resolve("fields.lua");
        Files.writeString(lua, Tools.lua(formats));
        Path pcap = Tools.onePacketPcap(dir);

        // the harness itself: a known field passes, an unknown one fails
        assertEquals(0, tshark(tshark, lua, pcap, "tracewire.pid == 1").code());
        assertNotEquals(0, tshark(tshark, lua, pcap, "tracewire.no_such_field == 1").code());

        List<String> filters = new ArrayList<>(List.of(
                DisplayFilterCompiler.compile(Filter.parse("prev_pid == -2147483648 || prev_prio & -2147483648 || prev_pid >= -2147483648 || prev_pid < -2147483648"), Events.sched_switch()).filter(),
                DisplayFilterCompiler.compile(Filter.parse("prev_comm == 'a\"b\\\\' || next_comm ~ \"[!a-c]?\\\\*x*\" || next_comm ~ \"(|)+{}^$.\""), Events.sched_switch()).filter(),
                DisplayFilterCompiler.compile(Filter.parse("call_site == 18446744073709551615 && gfp_flags & 0xffffffffffffffff"), Events.get("kmem:kmalloc")).filter()));
        RandomFilters gen = new RandomFilters(21);
        for (EventFormat f : formats) {
            for (int i = 0; i < 15; i++) {
                filters.add(CompiledFilter.compile(gen.valid(f, 1 + i % 4), f, ByteOrder.LITTLE_ENDIAN).display());
            }
        }
        List<String> refused = Collections.synchronizedList(new ArrayList<>());
        ExecutorService pool = Executors.newFixedThreadPool(4);
        try {
            List<Future<?>> jobs = new ArrayList<>();
            for (String expr : filters) {
                jobs.add(pool.submit(() -> {
                    Tools.Run r = tshark(tshark, lua, pcap, expr);
                    if (r.code() != 0 || r.output().contains("Lua: Error")) {
                        refused.add(expr + "\n" + r.output());
                    }
                }));
            }
            for (Future<?> j : jobs) {
                j.get();
            }
        } finally {
            pool.shutdownNow();
        }
        assertEquals(List.of(), refused);
    }

    private static Tools.Run tshark(Path tshark, Path lua, Path pcap, String expr) {
        return Tools.run(List.of(tshark.toString(), "-n", "-X", "lua_script:" + lua, "-r", pcap.toString(), "-Y", expr));
    }
}
