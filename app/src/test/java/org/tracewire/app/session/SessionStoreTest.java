package org.tracewire.app.session;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.tracewire.protocol.Messages;

class SessionStoreTest {
    @TempDir
    Path dir;

    private static Session sample() {
        return new Session(Session.VERSION, List.of(new Messages.CaptureEvent("sched:sched_switch", "prev_pid == 1"),
                new Messages.CaptureEvent("raw_syscalls:sys_enter", "")), "tw0", "/tmp/x.pcapng", 4096);
    }

    @Test
    void roundTripAndRecentList() throws IOException {
        SessionStore store = new SessionStore(dir.resolve("config"));
        Path f = dir.resolve("sessions/one.json");
        store.save(f, sample());
        assertEquals(sample(), store.load(f));
        assertEquals(List.of(f.toAbsolutePath()), store.recent());
        Path g = dir.resolve("two.json");
        store.save(g, new Session(1, List.of(), "", "", 0));
        assertEquals(List.of(g.toAbsolutePath(), f.toAbsolutePath()), store.recent());
        store.load(f);
        assertEquals(List.of(f.toAbsolutePath(), g.toAbsolutePath()), store.recent());
        Files.delete(g);
        assertEquals(List.of(f.toAbsolutePath()), store.recent(), "missing files drop out");
        String json = Files.readString(f);
        assertTrue(json.contains("\"event\" : \"sched:sched_switch\""), json);
    }

    @Test
    void writesAreAtomicAndLeaveNoTemporaryFiles() throws IOException {
        Path f = dir.resolve("s.json");
        org.tracewire.io.AtomicFile.write(f, "old".getBytes());
        org.tracewire.io.AtomicFile.write(f, "new".getBytes());
        assertEquals("new", Files.readString(f));
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(List.of(f), s.toList());
        }
        // A failed write (target is a non-empty directory) leaves the old content and no temp file.
        Path d = dir.resolve("d.json");
        Files.createDirectories(d.resolve("x"));
        assertThrows(IOException.class, () -> org.tracewire.io.AtomicFile.write(d, "x".getBytes()));
        try (Stream<Path> s = Files.list(dir)) {
            assertEquals(2, s.count());
        }
    }

    @Test
    void windowStateAndConfigDir() throws IOException {
        SessionStore store = new SessionStore(dir);
        assertEquals(WindowState.DEFAULT, store.windowState());
        WindowState w = new WindowState(10, 20, 1000, 700, false);
        store.saveWindowState(w);
        assertEquals(w, store.windowState());
        assertEquals(Path.of("/x/tracewire"), SessionStore.defaultConfigDir(Map.of("XDG_CONFIG_HOME", "/x", "HOME", "/h")));
        assertEquals(Path.of("/h/.config/tracewire"), SessionStore.defaultConfigDir(Map.of("HOME", "/h")));
    }

    @Test
    void rejectsNewerVersionsAndGarbage() throws IOException {
        SessionStore store = new SessionStore(dir.resolve("c"));
        Path f = dir.resolve("n.json");
        Files.writeString(f, "{\"version\": 99, \"events\": []}");
        assertThrows(IOException.class, () -> store.load(f));
        Files.writeString(f, "not json");
        assertThrows(IOException.class, () -> store.load(f));
    }

    @Test
    void theLastSessionIsRememberedApartFromTheRecentList() throws IOException {
        SessionStore store = new SessionStore(dir.resolve("config"));
        assertTrue(store.lastSession().isEmpty(), "nothing remembered yet");
        store.saveLast(sample());
        assertEquals(java.util.Optional.of(sample()), new SessionStore(dir.resolve("config")).lastSession());
        assertEquals(List.of(), store.recent(), "not a recent session file");
        Path last = dir.resolve("config/last-session.json");
        Files.writeString(last, "{\"version\": 99, \"events\": []}");
        assertTrue(store.lastSession().isEmpty(), "a newer tracewire's session is not applied");
        Files.writeString(last, "{ broken");
        assertTrue(store.lastSession().isEmpty(), "a broken file is ignored");
    }

    @Test
    void theQueryHistoryRoundTripsAndIsBounded() throws IOException {
        SessionStore store = new SessionStore(dir.resolve("queries"));
        assertTrue(store.queryHistory().isEmpty(), "none yet");
        List<String> many = new java.util.ArrayList<>();
        for (int i = 0; i < SessionStore.MAX_QUERIES + 20; i++) {
            many.add("SELECT " + i + " AS \"a\nb\"");
        }
        store.saveQueryHistory(many);
        assertEquals(many.subList(0, SessionStore.MAX_QUERIES), store.queryHistory(), "newest first, at most 100, text as it was");
        Files.writeString(dir.resolve("queries/query-history.json"), "[ broken");
        assertTrue(store.queryHistory().isEmpty(), "a broken file is ignored");
    }
}
