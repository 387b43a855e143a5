package org.tracewire.testing;

import java.io.File;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import java.util.Objects;
import java.util.function.BooleanSupplier;
import org.junit.jupiter.api.Assertions;
import org.junit.jupiter.api.Assumptions;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsException;

/**
 * What a test needs from the machine, shared by every module's tests (published in core's
 * test-jar). Each {@code require…} method returns normally when the prerequisite is met. When it
 * is not, the test is <em>skipped</em> ({@link Assumptions#abort(String)}) with a reason such as
 * {@code "needs root: tracefs is mode 0700"}, except on CI (environment {@code CI=true}), where
 * the same reason <em>fails</em> the test: CI runs as root with tshark installed, so a missing
 * prerequisite there is a broken machine, not a reason to skip.
 *
 * <p>Use the static methods in tests: {@code Tracefs t = Prerequisites.requireTracefs();}. The
 * instance methods exist so that the CI logic can be tested with an injected environment
 * ({@link #of(Map, BooleanSupplier)}).
 *
 * <p>Tags (see README "Tests"): tests calling {@link #requireRoot()} or {@link #requireTracefs()}
 * carry {@code @Tag("live")}; tests calling {@code requireTool("tshark")} carry
 * {@code @Tag("tshark")}.
 */
public final class Prerequisites {
    /** System property with the path of the tracefs snapshot; the parent pom's Surefire sets it. */
    public static final String SNAPSHOT_PROPERTY = "tracewire.snapshot";
    /** The prerequisites list relative to the repository root ({@link PrereqsList}). */
    public static final String PREREQS_LIST = "scripts/prereqs.list";
    /** The snapshot directory relative to the repository root. */
    public static final String SNAPSHOT_DIR = "snapshots/linux-6.18";

    private static final Prerequisites SYSTEM = new Prerequisites(System.getenv(), Tracefs::isRoot);

    private final Map<String, String> env;
    private final BooleanSupplier root;

    private Prerequisites(Map<String, String> env, BooleanSupplier root) {
        this.env = Map.copyOf(Objects.requireNonNull(env, "env"));
        this.root = Objects.requireNonNull(root, "root");
    }

    /**
     * Prerequisites judged against an injected environment and root check (for tests of this
     * class; production tests use the static methods, which read {@link System#getenv()}).
     *
     * @param env  environment variables; only {@code CI} and {@code PATH} are read
     * @param root answers "does this process run as uid 0?"
     */
    public static Prerequisites of(Map<String, String> env, BooleanSupplier root) {
        return new Prerequisites(env, root);
    }

    /** The prerequisites of this JVM: {@link System#getenv()} and the real uid. */
    public static Prerequisites system() {
        return SYSTEM;
    }

    /** Skips (or fails on CI) unless the JVM runs as root. */
    public static void requireRoot() {
        SYSTEM.root();
    }

    /**
     * Skips (or fails on CI) unless the live tracefs is usable: needs root; mounts tracefs at
     * {@code /sys/kernel/tracing} when it is not mounted.
     *
     * @return the live tracefs
     */
    public static Tracefs requireTracefs() {
        return SYSTEM.tracefs();
    }

    /**
     * Skips (or fails on CI) unless {@code executable} is an executable file in a {@code PATH}
     * directory (or, when it contains a {@code /}, is itself executable). Fails on any machine
     * when {@value #PREREQS_LIST} does not list it: a fresh machine would not get it.
     *
     * @param executable a command name such as {@code tshark}
     * @return the executable's path
     */
    public static Path requireTool(String executable) {
        if (!PrereqsList.load(PrereqsList.find()).covers(executable)) {
            Assertions.fail("needs " + executable + ", which " + PREREQS_LIST + " does not list: add the"
                    + " Debian package that provides it there (scope test), so ./tracewire test installs it");
        }
        return SYSTEM.tool(executable);
    }

    /**
     * The tracefs snapshot of this kernel ({@value #SNAPSHOT_DIR}): the directory named by system
     * property {@value #SNAPSHOT_PROPERTY}, else found by walking up from {@code user.dir}. The
     * snapshot is part of the repository, so not finding it fails the test (never skips).
     *
     * @return the snapshot directory (holding {@code events/header_page})
     */
    public static Path snapshot() {
        String prop = System.getProperty(SNAPSHOT_PROPERTY);
        if (prop != null && !prop.isBlank() && isSnapshot(Path.of(prop))) {
            return Path.of(prop).toAbsolutePath().normalize();
        }
        for (Path dir = Path.of(System.getProperty("user.dir")).toAbsolutePath(); dir != null; dir = dir.getParent()) {
            Path candidate = dir.resolve(SNAPSHOT_DIR);
            if (isSnapshot(candidate)) {
                return candidate.normalize();
            }
        }
        return Assertions.fail("no tracefs snapshot: system property " + SNAPSHOT_PROPERTY + "=" + prop
                + " is not one and no " + SNAPSHOT_DIR + " above " + System.getProperty("user.dir"));
    }

    private static boolean isSnapshot(Path dir) {
        return Files.isReadable(dir.resolve("events/header_page"));
    }

    /** True when environment variable {@code CI} is {@code true} (any case) or {@code 1}. */
    public boolean isCi() {
        String ci = env.get("CI");
        return ci != null && (ci.strip().equalsIgnoreCase("true") || ci.strip().equals("1"));
    }

    /**
     * Reports an unmet prerequisite: aborts the test (skip) with {@code reason}, or on CI fails it
     * with the same reason plus {@code " (CI=true: prerequisites must be met)"}.
     *
     * @param reason what is missing and how to get it, e.g. {@code "needs root: ..."}
     * @throws org.opentest4j.TestAbortedException  off CI
     * @throws org.opentest4j.AssertionFailedError on CI
     */
    public <T> T unmet(String reason) {
        if (isCi()) {
            return Assertions.fail(reason + " (CI=true: prerequisites must be met)");
        }
        return Assumptions.abort(reason);
    }

    /** Instance form of {@link #requireRoot()}. */
    public void root() {
        if (!root.getAsBoolean()) {
            unmet("needs root: tracefs is mode 0700 and instances need mkdir in it (run ./tracewire test as root)");
        }
    }

    /** Instance form of {@link #requireTracefs()}. */
    public Tracefs tracefs() {
        root();
        try {
            return Tracefs.live();
        } catch (TracefsException e) {
            return unmet("needs tracefs: " + e.getMessage());
        }
    }

    /**
     * Instance form of {@link #requireTool(String)} without the list check; searches this
     * instance's {@code PATH}.
     */
    public Path tool(String executable) {
        if (executable.contains("/")) {
            Path p = Path.of(executable);
            return Files.isExecutable(p) ? p : unmet("needs " + executable + ": not an executable file");
        }
        String path = env.getOrDefault("PATH", "");
        for (String dir : path.split(File.pathSeparator)) {
            if (!dir.isEmpty()) {
                Path p = Path.of(dir, executable);
                if (Files.isRegularFile(p) && Files.isExecutable(p)) {
                    return p;
                }
            }
        }
        return unmet("needs " + executable + ": not found on PATH (./tracewire test installs it)");
    }
}
