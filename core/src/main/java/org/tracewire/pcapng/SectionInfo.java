package org.tracewire.pcapng;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Objects;

/**
 * The options of a pcapng Section Header Block (draft-ietf-opsawg-pcapng, section 4.1):
 * {@code shb_hardware} (code 2), {@code shb_os} (code 3) and {@code shb_userappl} (code 4), each
 * a UTF-8 string; an empty string leaves the option out.
 *
 * @param hardware        the capturing machine's hardware (CPU model)
 * @param os              the operating system, as {@code uname -sr} prints it
 * @param userApplication the writing application, {@code "tracewire <version>"}
 */
public record SectionInfo(String hardware, String os, String userApplication) {
    public SectionInfo {
        Objects.requireNonNull(hardware, "hardware");
        Objects.requireNonNull(os, "os");
        Objects.requireNonNull(userApplication, "userApplication");
    }

    /**
     * This host's values: the first {@code model name} of {@code /proc/cpuinfo} (else the JVM's
     * {@code os.arch}), {@code os.name + " " + os.version} (on Linux the same as {@code uname -sr}),
     * and {@code "tracewire " + version}.
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
        return new SectionInfo(hw, os, "tracewire " + version);
    }

    /** {@link #host(String)} with the jar's implementation version, or {@code "dev"} when unpackaged. */
    public static SectionInfo host() {
        String v = SectionInfo.class.getPackage().getImplementationVersion();
        return host(v == null ? "dev" : v);
    }
}
