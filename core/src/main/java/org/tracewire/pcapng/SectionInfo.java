package org.tracewire.pcapng;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The options of a pcapng Section Header Block (draft-ietf-opsawg-pcapng, section 4.1):
 * {@code opt_comment} (code 1), {@code shb_hardware} (code 2), {@code shb_os} (code 3) and
 * {@code shb_userappl} (code 4), each a UTF-8 string; an empty string leaves the option out.
 *
 * @param hardware        the capturing machine's hardware (CPU model)
 * @param os              the operating system, as {@code uname -sr} prints it
 * @param userApplication the writing application, {@code "tracewire <version>"}
 * @param comment         {@code opt_comment}: free text, e.g. the capturing host's name (empty: none)
 */
public record SectionInfo(String hardware, String os, String userApplication, String comment) {
    public SectionInfo {
        Objects.requireNonNull(hardware, "hardware");
        Objects.requireNonNull(os, "os");
        Objects.requireNonNull(userApplication, "userApplication");
        Objects.requireNonNull(comment, "comment");
    }

    /** A section without a comment. */
    public SectionInfo(String hardware, String os, String userApplication) {
        this(hardware, os, userApplication, "");
    }

    /** This section with another {@code opt_comment}. */
    public SectionInfo withComment(String text) {
        return new SectionInfo(hardware, os, userApplication, text);
    }

    /**
     * This host's values: the first {@code model name} of {@code /proc/cpuinfo} (else the JVM's
     * {@code os.arch}), {@code os.name + " " + os.version} (on Linux the same as {@code uname -sr}),
     * and {@code "tracewire " + version}; the comment names the host
     * ({@code "host NAME"}, from {@code /proc/sys/kernel/hostname}).
     *
     * @param version tracewire's version string
     */
    public static SectionInfo host(String version) {
        String hw = System.getProperty("os.arch", "");
        try {
            for (String line : Files.readAllLines(Path.of("/proc/cpuinfo"))) {
                if (line.startsWith("model name")) {
                    int colon = line.indexOf(':');
                    hw = line.substring(colon + 1).trim();
                    break;
                }
            }
        } catch (IOException | RuntimeException e) {
            // keep os.arch
        }
        String os = (System.getProperty("os.name", "") + " " + System.getProperty("os.version", "")).trim();
        return new SectionInfo(hw, os, "tracewire " + version, "host " + hostName());
    }

    /** {@link #host(String)} with the jar's implementation version, or {@code "dev"} when unpackaged. */
    public static SectionInfo host() {
        String v = SectionInfo.class.getPackage().getImplementationVersion();
        return host(v == null ? "dev" : v);
    }

    /** This host's name: {@code /proc/sys/kernel/hostname}, else {@code HOSTNAME}, else {@code "localhost"}. */
    public static String hostName() {
        try {
            String h = Files.readString(Path.of("/proc/sys/kernel/hostname")).strip();
            if (!h.isEmpty()) {
                return h;
            }
        } catch (IOException | RuntimeException e) {
            // fall through
        }
        String env = System.getenv("HOSTNAME");
        return env != null && !env.isBlank() ? env.strip() : "localhost";
    }
}
