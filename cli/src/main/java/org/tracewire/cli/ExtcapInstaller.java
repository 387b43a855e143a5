package org.tracewire.cli;

import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import org.tracewire.posix.InvokingUser;

/**
 * Installs tracewire's extcap entry: a small {@code /bin/sh} script named {@value #FILE_NAME}
 * in the folder where the installed Wireshark looks for extcaps, which execs Java directly with
 * absolute paths ({@code java -cp CLASSPATH org.tracewire.cli.Main extcap "$@"}), so Wireshark's
 * calls never trigger a build. Wireshark's folders come from {@code tshark -G folders}
 * ("Extcap path", the global folder; "Personal Extcap path" from Wireshark 4.2 on, absent in
 * Debian 12's 4.0, which reads only the global folder).
 */
public final class ExtcapInstaller {
    /** The script's file name in the extcap folder. */
    public static final String FILE_NAME = "tracewire";
    /** A line every script this class writes carries; files without it are never replaced or removed. */
    public static final String MARKER = "# tracewire extcap for Wireshark";

    private ExtcapInstaller() {
    }

    /**
     * Runs {@code tshark -G folders} and parses it ({@link #parseFolders}).
     *
     * @return folder per label, e.g. "Extcap path" → /usr/lib/x86_64-linux-gnu/wireshark/extcap
     * @throws IOException when tshark cannot be run or fails
     */
    public static Map<String, Path> wiresharkFolders() throws IOException {
        Process p;
        try {
            p = new ProcessBuilder("tshark", "-G", "folders").redirectError(ProcessBuilder.Redirect.DISCARD).start();
        } catch (IOException e) {
            throw new IOException("tshark not found (sudo apt-get install -y tshark): " + e.getMessage(), e);
        }
        String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        try {
            if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
                p.destroyForcibly();
                throw new IOException("tshark -G folders failed");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted waiting for tshark -G folders", e);
        }
        return parseFolders(out);
    }

    /**
     * Parses the output of {@code tshark -G folders}: lines {@code Label:<tab>path}. A label
     * given more than once keeps its first path.
     *
     * @param text the output
     * @return path per label, in order
     */
    public static Map<String, Path> parseFolders(String text) {
        Map<String, Path> m = new LinkedHashMap<>();
        for (String line : text.split("\n")) {
            int colon = line.indexOf(':');
            if (colon <= 0) {
                continue;
            }
            String value = line.substring(colon + 1).strip();
            if (!value.startsWith("/")) {
                continue;
            }
            m.putIfAbsent(line.substring(0, colon).strip(), Path.of(value));
        }
        return m;
    }

    /**
     * The extcap folder to install into: the global "Extcap path" as root, else "Personal
     * Extcap path" when the installed Wireshark has one.
     *
     * @param folders {@link #wiresharkFolders()}
     * @param root    true when running as root
     * @return the folder, or empty when only root can install (Wireshark 4.0 as another user)
     */
    public static Optional<Path> extcapFolder(Map<String, Path> folders, boolean root) {
        if (root) {
            return Optional.ofNullable(folders.get("Extcap path"));
        }
        return Optional.ofNullable(folders.get("Personal Extcap path"));
    }

    /**
     * The script's text, its JVM started with {@code jvmOptions} (the launcher's
     * {@code capture_jvm_opts}: the capture process's memory limits, docs/capture.md "Memory").
     *
     * @param java       absolute path of the java executable
     * @param jvmOptions options for that JVM, each one word (quoted for the shell here)
     * @param classPath  the class path holding org.tracewire.cli.Main and its dependencies
     * @param home       the tracewire repository root (for the snapshot and messages), or null
     * @param version    tracewire's version, for the comment
     * @param configs    the {@code --extcap-config} answer of each interface, computed at install
     *                   time (they change only with the kernel's trace clocks): the script prints
     *                   them itself; an interface not in the map, and a reload of an option
     *                   ({@code --extcap-reload-option}), go to the JVM
     * @return the script
     */
    public static String script(Path java, List<String> jvmOptions, String classPath, Path home, String version,
                                Map<String, List<String>> configs) {
        List<String> command = new ArrayList<>();
        command.add(java.toString());
        command.addAll(jvmOptions);
        if (home != null) {
            command.add("-Dtracewire.home=" + home);
            command.add("-Dtracewire.snapshot=" + home.resolve("snapshots/linux-6.18"));
        }
        command.addAll(List.of("-cp", classPath, "org.tracewire.cli.Main"));
        return script(command, version, "written by `tracewire extcap --install`.",
                "Runs Java directly (no build); run `tracewire extcap --install` again after moving tracewire.", configs);
    }

    /**
     * The script's text for any command that runs tracewire: the answers Wireshark asks for at
     * every start ({@code --extcap-interfaces}, {@code --extcap-dlts}, and {@code configs}) are
     * printed by the script itself, without starting a JVM; any other call execs
     * {@code command extcap "$@"}. The Debian package's entry (dist/) is this with
     * {@code command} = the installed launcher.
     *
     * @param command the words that start tracewire's {@code org.tracewire.cli.Main} (each quoted here)
     * @param version tracewire's version, for the comment and the interface list
     * @param origin  what wrote the script, for its second line after {@link #MARKER}
     * @param note    a comment line for whoever reads the script, or null
     * @param configs as {@link #script(Path, List, String, Path, String, Map)}
     * @return the script
     */
    public static String script(List<String> command, String version, String origin, String note,
                                Map<String, List<String>> configs) {
        StringBuilder sb = new StringBuilder();
        sb.append("#!/bin/sh\n");
        sb.append(MARKER).append(" (").append(version).append("), ").append(origin).append('\n');
        if (note != null) {
            sb.append("# ").append(note).append('\n');
        }
        // Wireshark and tshark ask every extcap for its interfaces and DLTs each time they start:
        // answered here, without starting a JVM, so an installed tracewire costs them nothing.
        sb.append("case \" $* \" in\n");
        captureFilterCase(sb);
        sb.append("  *\" --extcap-interfaces \"*)\n    printf '%s\\n'");
        for (String line : ExtcapProtocol.interfaces(version)) {
            sb.append(' ').append(quote(line));
        }
        sb.append("\n    exit 0 ;;\n");
        sb.append("  *\" --extcap-dlts \"*)\n    printf '%s\\n'");
        for (String line : ExtcapProtocol.dlts()) {
            sb.append(' ').append(quote(line));
        }
        sb.append("\n    exit 0 ;;\n");
        configCase(sb, configs);
        sb.append("esac\n");
        sb.append("exec");
        for (String w : command) {
            sb.append(' ').append(quote(w));
        }
        sb.append(" extcap \"$@\"\n");
        return sb.toString();
    }

    /** The case that answers Wireshark's check of a capture filter (no --capture): the reason on stdout, or nothing. */
    private static void captureFilterCase(StringBuilder sb) {
        sb.append("  *\" --extcap-capture-filter\"*)\n    case \" $* \" in\n      *\" --capture \"*) ;;\n      *)\n");
        sb.append("        f=; i=; p=\n");
        sb.append("        for a in \"$@\"; do\n");
        sb.append("          [ \"$p\" = --extcap-capture-filter ] && f=$a\n");
        sb.append("          [ \"$p\" = --extcap-interface ] && i=$a\n");
        sb.append("          case $a in --extcap-capture-filter=*) f=${a#*=} ;; --extcap-interface=*) i=${a#*=} ;; esac\n");
        sb.append("          p=$a\n        done\n");
        sb.append("        case $f in *[![:space:]]*)\n          case $i in\n");
        for (String i : List.of(ExtcapProtocol.INTERFACE, ExtcapProtocol.INTERFACE_SSH)) {
            sb.append("            ").append(i).append(") printf '%s\\n' ").append(quote(ExtcapProtocol.captureFilterRefusal(i)))
                    .append(" ;;\n");
        }
        sb.append("          esac ;;\n        esac\n        exit 0 ;;\n    esac ;;\n");
    }

    /**
     * The case that answers {@code --extcap-config} for each interface of {@code configs} (none
     * when empty): tshark and Wireshark ask for the options before every capture.
     */
    private static void configCase(StringBuilder sb, Map<String, List<String>> configs) {
        // tshark and Wireshark ask for the options before every capture: answered here too, so a
        // capture starts one JVM, not two (a JVM start delays the capture; BENCHMARKS.md)
        if (configs.isEmpty()) {
            return;
        }
        sb.append("  *\" --extcap-reload-option \"*) ;;\n");
        sb.append("  *\" --extcap-config \"*)\n    case \" $* \" in\n");
        // in name order, so the script is the same for the same answers
        List<String> names = new ArrayList<>(configs.keySet());
        names.sort(null);
        for (String name : names) {
            sb.append("      *\" --extcap-interface ").append(name).append(" \"*|*\" --extcap-interface=").append(name)
                    .append(" \"*)\n        printf '%s\\n'");
            for (String line : configs.get(name)) {
                sb.append(' ').append(quote(line));
            }
            sb.append("\n        exit 0 ;;\n");
        }
        sb.append("    esac ;;\n");
    }

    /**
     * The entry the Debian package installs (dist/): it execs the installed launcher, which gives
     * a capture its JVM options ({@code capture_jvm_opts}). The interface list, the link types and
     * the {@code tracewire-ssh} options are answered by the script; the {@code tracewire} options
     * by the JVM, because they list the running kernel's trace clocks.
     *
     * @param launcher the installed launcher, e.g. /usr/bin/tracewire
     * @param version  tracewire's version
     * @return the script
     */
    public static String packagedScript(Path launcher, String version) {
        return script(List.of(launcher.toString()), version, "installed by the tracewire Debian package.", null,
                Map.of(ExtcapProtocol.INTERFACE_SSH, ExtcapProtocol.configSsh()));
    }

    /**
     * The class path for the script: the cli module's jar and its copied dependencies, and the
     * dissector generator's jar, which the extcap needs to generate its dissector ({@code
     * --install-dissector}) and which {@code cli/target/lib} leaves out (a capture's class path holds
     * no generator): {@code cli/target/tracewire-cli-VERSION.jar:cli/target/lib/*:dissector-gen/target/
     * tracewire-dissector-gen-VERSION.jar} under {@code home} when they exist, else this JVM's class
     * path made absolute.
     *
     * @param home the repository root, or null
     * @return the class path
     */
    public static String classPath(Path home) {
        if (home != null) {
            Path lib = home.resolve("cli/target/lib");
            Optional<Path> cli = moduleJar(home.resolve("cli/target"), "tracewire-cli-");
            Optional<Path> generator = moduleJar(home.resolve("dissector-gen/target"), "tracewire-dissector-gen-");
            if (Files.isDirectory(lib) && cli.isPresent() && generator.isPresent()) {
                return String.join(File.pathSeparator, cli.get().toAbsolutePath().toString(),
                        lib.toAbsolutePath() + File.separator + "*", generator.get().toAbsolutePath().toString());
            }
        }
        List<String> entries = new ArrayList<>();
        for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
            if (!e.isEmpty()) {
                entries.add(Path.of(e).toAbsolutePath().toString());
            }
        }
        return String.join(File.pathSeparator, entries);
    }

    /** A module's main jar in its {@code target} folder (not its tests or sources jar), if built. */
    private static Optional<Path> moduleJar(Path target, String prefix) {
        if (!Files.isDirectory(target)) {
            return Optional.empty();
        }
        try (var s = Files.list(target)) {
            return s.filter(p -> {
                String n = p.getFileName().toString();
                return n.startsWith(prefix) && n.endsWith(".jar") && !n.endsWith("-tests.jar") && !n.endsWith("-sources.jar");
            }).findFirst();
        } catch (IOException e) {
            return Optional.empty(); // the caller falls back to this JVM's class path
        }
    }

    /**
     * Writes the script into a folder (created when missing) atomically, mode 0755, as this
     * process ({@link InvokingUser#process()}: root into Wireshark's global folder; a folder on the
     * way that is a symbolic link of another user's is refused, the file's own name never followed).
     *
     * @param folder the extcap folder
     * @param script {@link #script}
     * @return the installed file
     * @throws IOException when a file that is not tracewire's is in the way, or writing fails
     */
    public static Path install(Path folder, String script) throws IOException {
        return InvokingUser.process().replaceFile(folder.resolve(FILE_NAME), 0755, ExtcapInstaller::isOurs,
                script.getBytes(StandardCharsets.UTF_8));
    }

    /**
     * Removes tracewire's script from a folder.
     *
     * @param folder the extcap folder
     * @return true when a script was removed, false when there was none
     * @throws IOException when the file there is not tracewire's
     */
    public static boolean uninstall(Path folder) throws IOException {
        return InvokingUser.process().removeFile(folder.resolve(FILE_NAME), ExtcapInstaller::isOurs);
    }

    /** True when the content is a script this class wrote ({@link #MARKER} on its second line); false for null. */
    static boolean isOurs(byte[] content) {
        if (content == null) {
            return false;
        }
        String[] lines = new String(content, StandardCharsets.UTF_8).split("\n", 3);
        return lines.length > 1 && lines[1].startsWith(MARKER);
    }

    /**
     * The JVM options the launcher hands a capture-type JVM in system property
     * {@value #JVM_OPTIONS_PROPERTY} (its {@code capture_jvm_opts}, words separated by blanks).
     *
     * @return the options, empty when the property is unset (not started by the launcher)
     */
    public static List<String> launcherJvmOptions() {
        String v = System.getProperty(JVM_OPTIONS_PROPERTY, "").strip();
        return v.isEmpty() ? List.of() : List.of(v.split("\\s+"));
    }

    /** System property that carries the launcher's {@code capture_jvm_opts}. */
    public static final String JVM_OPTIONS_PROPERTY = "tracewire.captureJvmOpts";

    /** Quotes a word for {@code /bin/sh} (single quotes). */
    static String quote(String s) {
        return "'" + s.replace("'", "'\\''") + "'";
    }
}
