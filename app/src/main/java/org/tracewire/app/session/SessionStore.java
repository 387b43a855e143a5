package org.tracewire.app.session;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.tracewire.io.AtomicFile;

/**
 * Reads and writes sessions, the recent-sessions list and the window state as JSON (Jackson).
 * Every write is atomic: a temporary file in the same directory, then a move over the target, so
 * a crash leaves the old file or the new one, never half of one. App state lives in the config
 * directory ({@code $XDG_CONFIG_HOME/tracewire}, default {@code ~/.config/tracewire}).
 */
public final class SessionStore {
    /** How many recent sessions are remembered. */
    public static final int MAX_RECENT = 10;
    private static final String RECENT = "recent-sessions.json";
    private static final String WINDOW = "window.json";
    private static final String LAST = "last-session.json";
    private static final String QUERIES = "query-history.json";
    /** How many queries the query view's history keeps. */
    public static final int MAX_QUERIES = 100;

    private final Path configDir;
    private final ObjectMapper mapper = new ObjectMapper()
            .enable(SerializationFeature.INDENT_OUTPUT)
            .configure(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES, false);

    /** @param configDir where recent sessions and the window state are kept */
    public SessionStore(Path configDir) {
        this.configDir = configDir;
    }

    /**
     * The default config directory.
     *
     * @param env the environment (XDG_CONFIG_HOME, HOME)
     * @return {@code $XDG_CONFIG_HOME/tracewire} or {@code ~/.config/tracewire}
     */
    public static Path defaultConfigDir(Map<String, String> env) {
        String xdg = env.get("XDG_CONFIG_HOME");
        if (xdg != null && !xdg.isBlank()) {
            return Path.of(xdg, "tracewire");
        }
        return Path.of(env.getOrDefault("HOME", System.getProperty("user.home")), ".config", "tracewire");
    }

    /** The config directory. */
    public Path configDir() {
        return configDir;
    }

    /**
     * Saves a session atomically and puts it first in the recent list.
     *
     * @param file    where to
     * @param session what
     * @throws IOException when writing fails (the old file is left as it was)
     */
    public void save(Path file, Session session) throws IOException {
        AtomicFile.write(file, mapper.writeValueAsBytes(session));
        addRecent(file);
    }

    /**
     * Loads a session and puts it first in the recent list.
     *
     * @param file the session file
     * @return the session
     * @throws IOException when it cannot be read or is not a session
     */
    public Session load(Path file) throws IOException {
        Session s = mapper.readValue(file.toFile(), Session.class);
        if (s.version() > Session.VERSION) {
            throw new IOException(file + " is a session of a newer tracewire (version " + s.version() + ")");
        }
        addRecent(file);
        return s;
    }

    /** @return recent session files, newest first, only those that still exist */
    public List<Path> recent() {
        Path f = configDir.resolve(RECENT);
        if (!Files.isRegularFile(f)) {
            return List.of();
        }
        try {
            List<String> list = mapper.readValue(f.toFile(), new TypeReference<List<String>>() { });
            return list.stream().map(Path::of).filter(Files::isRegularFile).toList();
        } catch (IOException e) {
            return List.of();
        }
    }

    private void addRecent(Path file) throws IOException {
        List<String> list = new ArrayList<>();
        list.add(file.toAbsolutePath().normalize().toString());
        for (Path p : recent()) {
            String s = p.toAbsolutePath().normalize().toString();
            if (!list.contains(s) && list.size() < MAX_RECENT) {
                list.add(s);
            }
        }
        AtomicFile.write(configDir.resolve(RECENT), mapper.writeValueAsBytes(list));
    }

    /**
     * Remembers the capture setup the app had when it closed, restored at the next start
     * ({@code last-session.json} in the config directory; not added to the recent list).
     *
     * @param session the setup
     * @throws IOException when writing fails (the previous one is left as it was)
     */
    public void saveLast(Session session) throws IOException {
        AtomicFile.write(configDir.resolve(LAST), mapper.writeValueAsBytes(session));
    }

    /**
     * The setup remembered by {@link #saveLast}.
     *
     * @return it, or empty when there is none, it cannot be read, or a newer tracewire wrote it
     */
    public Optional<Session> lastSession() {
        Path f = configDir.resolve(LAST);
        if (!Files.isRegularFile(f)) {
            return Optional.empty();
        }
        try {
            Session s = mapper.readValue(f.toFile(), Session.class);
            return s.version() > Session.VERSION ? Optional.empty() : Optional.of(s);
        } catch (IOException e) {
            return Optional.empty();
        }
    }

    /** @return the saved window state, or {@link WindowState#DEFAULT} */
    public WindowState windowState() {
        Path f = configDir.resolve(WINDOW);
        try {
            return Files.isRegularFile(f) ? mapper.readValue(f.toFile(), WindowState.class) : WindowState.DEFAULT;
        } catch (IOException e) {
            return WindowState.DEFAULT;
        }
    }

    /**
     * @param state the window state to restore next time
     * @throws IOException when writing fails
     */
    public void saveWindowState(WindowState state) throws IOException {
        AtomicFile.write(configDir.resolve(WINDOW), mapper.writeValueAsBytes(state));
    }

    /**
     * The query view's history: the SQL run, newest first ({@code query-history.json}).
     *
     * @return the queries, empty when there are none or the file cannot be read
     */
    public List<String> queryHistory() {
        Path f = configDir.resolve(QUERIES);
        try {
            return Files.isRegularFile(f) ? mapper.readValue(f.toFile(), new TypeReference<List<String>>() { }) : List.of();
        } catch (IOException e) {
            return List.of();
        }
    }

    /**
     * Keeps the query view's history (at most {@value #MAX_QUERIES}, newest first).
     *
     * @param queries the SQL run, newest first
     * @throws IOException when writing fails (the previous history is left as it was)
     */
    public void saveQueryHistory(List<String> queries) throws IOException {
        AtomicFile.write(configDir.resolve(QUERIES),
                mapper.writeValueAsBytes(queries.subList(0, Math.min(queries.size(), MAX_QUERIES))));
    }
}
