package org.tracewire.app.main;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.tracefs.EventSelection;
import org.tracewire.app.capture.CaptureStatusText;
import org.tracewire.app.session.SessionStore;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.app.wireshark.WiresharkViewModel;
import org.tracewire.filter.Op;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

class MainViewModelTest {
    @TempDir
    Path dir;

    private MainViewModel vm(List<List<String>> started, String path) {
        return new MainViewModel(new DirectTaskExecutor(), new SessionStore(dir.resolve("config")), () -> java.nio.ByteOrder.LITTLE_ENDIAN,
                () -> null, started::add, Map.of("PATH", path));
    }

    @Test
    void browserToFilterToCaptureToSessionAndBack() {
        MainViewModel vm = vm(new ArrayList<>(), "/nonexistent");
        vm.browser().load(Tracefs.open(Prerequisites.snapshot()));
        vm.browser().selectedEventProperty().set("sched:sched_wakeup");
        vm.addSelectedToCapture();
        vm.browser().selectedEventProperty().set("sched:sched_switch");
        assertEquals("sched:sched_switch", vm.filter().eventProperty().get().fullName());
        var c = vm.filter().rootProperty().get().addCondition("next_pid");
        c.operatorProperty().set(Op.NE);
        c.valueProperty().set("0");
        vm.useFilterInCapture();
        vm.capture().ifaceProperty().set("tw1");
        vm.capture().bufferKbProperty().set(2048);
        assertEquals(List.of(EventSelection.parse("sched:sched_wakeup", ""), EventSelection.parse("sched:sched_switch", "next_pid != 0")),
                vm.capture().getEvents());

        Path file = dir.resolve("s.json");
        vm.saveSession(file, () -> { });
        assertEquals(List.of(file.toAbsolutePath()), vm.getRecent());

        MainViewModel fresh = vm(new ArrayList<>(), "/nonexistent");
        assertEquals(List.of(file.toAbsolutePath()), fresh.getRecent(), "recent list survives a restart");
        fresh.openSession(file, () -> { });
        assertEquals(vm.capture().getEvents(), fresh.capture().getEvents());
        assertEquals("tw1", fresh.capture().ifaceProperty().get());
        assertEquals(2048, fresh.capture().bufferKbProperty().get());
        assertEquals("tw1", fresh.wireshark().ifaceProperty().get(), "Wireshark follows the capture outputs");
    }

    @Test
    void aSelectedSystemAddsAllItsEventsAndFiltersStay() {
        MainViewModel vm = vm(new ArrayList<>(), "/nonexistent");
        Tracefs t = Tracefs.open(Prerequisites.snapshot());
        vm.browser().load(t);
        vm.capture().addEvent("sched:sched_switch", "prev_pid == 1");
        vm.browser().getSelection().setAll("sched");
        vm.addSelectedToCapture();
        int n = t.events("sched").size();
        assertEquals(n, vm.capture().getEvents().size());
        assertEquals("added " + (n - 1) + " events to the capture (1 already there)", vm.messageProperty().get());
        assertEquals(EventSelection.parse("sched:sched_switch", "prev_pid == 1"), vm.capture().getEvents().get(0),
                "an event already chosen keeps its filter");
    }

    @Test
    void theLastSessionIsRestoredAtTheNextStart() throws Exception {
        MainViewModel first = vm(new ArrayList<>(), "/nonexistent");
        first.capture().addEvent("sched:sched_switch", "prev_pid == 1");
        first.capture().addEvent("irq:irq_handler_entry", "");
        first.capture().ifaceProperty().set("");
        first.capture().pcapngProperty().set("/tmp/last.pcapng");
        first.capture().bufferKbProperty().set(512);
        first.rememberSession();

        MainViewModel next = vm(new ArrayList<>(), "/nonexistent");
        List<Boolean> applied = new ArrayList<>();
        next.restoreLastSession(applied::add);
        assertEquals(List.of(true), applied);
        assertEquals(first.capture().getEvents(), next.capture().getEvents());
        assertEquals("", next.capture().ifaceProperty().get());
        assertEquals("/tmp/last.pcapng", next.capture().pcapngProperty().get());
        assertEquals("/tmp/last.pcapng", next.wireshark().pcapngProperty().get());
        assertEquals(512, next.capture().bufferKbProperty().get());
        assertEquals("restored the last session (2 events)", next.messageProperty().get());

        MainViewModel busy = vm(new ArrayList<>(), "/nonexistent");
        busy.capture().addEvent("sched:sched_wakeup", "");
        List<Boolean> applied2 = new ArrayList<>();
        busy.restoreLastSession(applied2::add);
        assertEquals(List.of(false), applied2, "events chosen meanwhile win");
        assertEquals(List.of(EventSelection.parse("sched:sched_wakeup", "")), busy.capture().getEvents());
    }

    @Test
    void theStatusBarsBackendStateAndTheDissectorNotice() {
        assertEquals("no backend", CaptureStatusText.backendState(false, false, false, false));
        assertEquals("starting the backend…", CaptureStatusText.backendState(false, true, false, false));
        assertEquals("starting the capture…", CaptureStatusText.backendState(false, true, false, true));
        assertEquals("capturing", CaptureStatusText.backendState(false, false, true, true));
        assertEquals("stopping…", CaptureStatusText.backendState(false, true, true, true));
        assertEquals("backend idle", CaptureStatusText.backendState(false, false, false, true));
        assertEquals("reading a file", CaptureStatusText.backendState(true, true, false, false));

        MainViewModel vm = vm(new ArrayList<>(), "/nonexistent");
        assertEquals("no backend", vm.capture().backendStateProperty().get());
        Path lua = dir.resolve("t.lua");
        vm.wireshark().setGenerator(evs -> new org.tracewire.app.wireshark.WiresharkViewModel.Generated(lua, "2 events, 18 fields"), List::of);
        vm.wireshark().generate();
        vm.wireshark().generate();
        MainViewModel.Notice n = vm.noticeProperty().get();
        assertEquals("dissector written to " + lua + " (2 events, 18 fields)", n.text());
        assertEquals(2, n.seq(), "the same text twice is two notices");
    }

    @Test
    void wiresharkMissingGivesTheAptLineAndCommandsAreRight() {
        List<List<String>> started = new ArrayList<>();
        MainViewModel vm = vm(started, "/nonexistent");
        assertTrue(vm.wireshark().messageProperty().get().contains(WiresharkViewModel.INSTALL_LINE));
        vm.wireshark().open();
        assertEquals(List.of(), started);
        assertEquals(List.of("wireshark", "-k", "-i", "tw0", "-X", "lua_script:/p/t.lua"),
                WiresharkViewModel.liveCommand("wireshark", "tw0", "/p/t.lua"));
        assertEquals(List.of("wireshark", "-r", "/t/x.pcapng"), WiresharkViewModel.fileCommand("wireshark", "/t/x.pcapng", ""));
    }

    @Test
    void generateDissectorWritesTheCapturesEventsAndLoadsThePlugin() throws Exception {
        // The app's real generator (org.tracewire.dissector) over the snapshot.
        MainViewModel vm = org.tracewire.app.TracewireApp.createViewModel(new DirectTaskExecutor(),
                new SessionStore(dir.resolve("config")), Map.of("PATH", "/nonexistent"));
        vm.browser().load(Tracefs.open(Prerequisites.snapshot()));
        assertTrue(vm.wireshark().generatorAvailableProperty().get());
        vm.capture().addEvent("sched:sched_switch", "");
        vm.capture().addEvent("sched:sched_wakeup", "");
        vm.wireshark().generate();
        Path lua = dir.resolve("config/tracewire.lua");
        assertEquals(lua.toString(), vm.wireshark().luaPluginProperty().get(), vm.wireshark().messageProperty().get());
        assertTrue(vm.wireshark().messageProperty().get().startsWith("dissector: 2 events"), vm.wireshark().messageProperty().get());
        String text = java.nio.file.Files.readString(lua);
        assertTrue(text.contains("tracewire.sched.sched_switch.prev_pid") && !text.contains("tracewire.irq."), "only the chosen events");
        assertEquals(List.of("wireshark", "-k", "-i", "tw0", "-X", "lua_script:" + lua),
                WiresharkViewModel.liveCommand("wireshark", "tw0", vm.wireshark().luaPluginProperty().get()));
    }

    @Test
    void wiresharkInstalledIsStartedOnTheInterface() throws Exception {
        Path bin = dir.resolve("bin");
        java.nio.file.Files.createDirectories(bin);
        Path ws = bin.resolve("wireshark");
        java.nio.file.Files.writeString(ws, "#!/bin/sh\n");
        ws.toFile().setExecutable(true);
        List<List<String>> started = new ArrayList<>();
        MainViewModel vm = vm(started, bin.toString());
        vm.capture().ifaceProperty().set("tw0");
        vm.wireshark().open();
        assertEquals(List.of(List.of(ws.toString(), "-k", "-i", "tw0")), started);
    }

    @Test
    void wiresharkHandOffsShareOnePluginRuleAndTheViewOpensTheOpenedFile() throws Exception {
        Path bin = java.nio.file.Files.createDirectories(dir.resolve("bin"));
        Path ws = bin.resolve("wireshark");
        java.nio.file.Files.writeString(ws, "#!/bin/sh\n");
        ws.toFile().setExecutable(true);
        Path home = java.nio.file.Files.createDirectories(dir.resolve("home"));
        List<List<String>> started = new ArrayList<>();
        MainViewModel vm = new MainViewModel(new DirectTaskExecutor(), new SessionStore(dir.resolve("config")),
                () -> java.nio.ByteOrder.LITTLE_ENDIAN, () -> null, started::add, Map.of("PATH", bin.toString(), "HOME", home.toString()));
        WiresharkViewModel w = vm.wireshark();
        Path plugins = home.resolve(".local/lib/wireshark/plugins");
        assertEquals(plugins, w.pluginFolder());
        Path generated = dir.resolve("gen.lua");
        List<List<String>> generatedFor = new ArrayList<>();
        w.setGenerator(evs -> {
            generatedFor.add(evs);
            java.nio.file.Files.writeString(generated, "-- plugin\n");
            return new WiresharkViewModel.Generated(generated, "all events");
        }, List::of);

        // a clean profile: no plugin installed, none generated: one is generated and passed
        w.showFrame("/t/f.pcapng", 5);
        assertEquals(List.of(ws.toString(), "-X", "lua_script:" + generated, "-r", "/t/f.pcapng", "-g", "5"), started.get(0));
        assertEquals(List.of(List.of()), generatedFor, "for every event");
        assertEquals(generated.toString(), w.luaPluginProperty().get());
        vm.capture().ifaceProperty().set("tw0");
        w.open();
        assertEquals(List.of(ws.toString(), "-k", "-i", "tw0", "-X", "lua_script:" + generated), started.get(1));
        assertEquals(1, generatedFor.size(), "generated once");

        // the plugin installed in the user's folder: Wireshark loads it; a second copy would be refused
        java.nio.file.Files.createDirectories(plugins);
        java.nio.file.Files.writeString(plugins.resolve("tracewire.lua"), "-- installed\n");
        assertEquals("", WiresharkViewModel.luaScript(plugins, generated.toString()));
        w.showFrame("/t/f.pcapng", 6);
        assertEquals(List.of(ws.toString(), "-r", "/t/f.pcapng", "-g", "6"), started.get(2));
        w.open();
        assertEquals(List.of(ws.toString(), "-k", "-i", "tw0"), started.get(3));

        // a file opened in the app wins over the capture's interface
        Path file = org.tracewire.testing.FixturePcapng.write(dir.resolve("opened.pcapng"),
                org.tracewire.testing.FixtureRecords.load().subList(0, 100));
        vm.browser().load(Tracefs.open(Prerequisites.snapshot()));
        vm.openFile(file);
        assertTrue(w.target().startsWith("the opened file " + file.toAbsolutePath()), w.target());
        w.open();
        assertEquals(List.of(ws.toString(), "-r", file.toAbsolutePath().toString()), started.get(4));
        // a trace.dat is not offered to Wireshark
        Path dat = org.tracewire.app.capture.TestRows.schedDat(dir);
        vm.openFile(dat);
        w.open();
        assertEquals(5, started.size(), "nothing started for a trace.dat");
        assertTrue(w.messageProperty().get().startsWith("Wireshark does not read a trace.dat"), w.messageProperty().get());
    }
}
