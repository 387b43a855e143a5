package org.tracewire.dist;

import java.io.IOException;
import java.io.OutputStream;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.zip.GZIPOutputStream;
import org.asciidoctor.Asciidoctor;
import org.asciidoctor.Options;
import org.asciidoctor.SafeMode;
import org.tracewire.cli.ExtcapInstaller;
import org.tracewire.cli.Main;
import org.tracewire.dissector.DissectorGenerator;
import picocli.AutoComplete;
import picocli.CommandLine;
import picocli.CommandLine.Model.CommandSpec;
import picocli.codegen.docgen.manpage.ManPageGenerator;

/**
 * Generates the Debian package's files that come from tracewire's own model rather than from the
 * source tree: one man page per command ({@code man/tracewire.1.gz}, {@code man/tracewire-capture.1.gz},
 * …: picocli-codegen's {@link ManPageGenerator} AsciiDoc of the picocli model
 * ({@link Main#commandLine}), converted to roff by Asciidoctor's manpage backend), the bash
 * completion script ({@code completion/tracewire}, picocli's {@link AutoComplete}), the Wireshark
 * extcap entry ({@code extcap/tracewire}, {@link ExtcapInstaller#packagedScript}), the Lua
 * runtime alone (installed as {@code lua/tracewire.lua}, {@link DissectorGenerator#runtimeOnly}: the files of
 * {@code lua/runtime/} concatenated) and the icon theme folders ({@code icons/NxN/apps/tracewire.png} from {@code icons/png/tracewire-N.png}).
 * Runs at build time (dist/pom.xml, phase prepare-package); jdeb packs the results.
 */
public final class PackageFiles {
    /** Where the package installs the launcher the extcap entry runs. */
    static final Path LAUNCHER = Path.of("/usr/bin/tracewire");
    /** picocli's built-in help command: its page would only say "see the other pages". */
    private static final String HELP = "help";
    private static final Pattern ICON = Pattern.compile("tracewire-(\\d+)\\.png");

    private PackageFiles() {
    }

    /**
     * @param args the output folder, tracewire's version, the repository root
     * @throws IOException when a file cannot be written
     */
    public static void main(String[] args) throws IOException {
        if (args.length != 3) {
            throw new IllegalArgumentException("usage: PackageFiles OUT_DIR VERSION REPOSITORY_ROOT");
        }
        Path out = Path.of(args[0]);
        String version = args[1];
        Path repo = Path.of(args[2]);
        CommandLine cl = Main.commandLine(new String[0]);
        cl.getCommandSpec().version("tracewire " + version);
        List<Path> pages = manPages(cl, out.resolve("man"));
        Path completion = write(out.resolve("completion/tracewire"), AutoComplete.bash("tracewire", cl));
        Path extcap = write(out.resolve("extcap/tracewire"), ExtcapInstaller.packagedScript(LAUNCHER, version));
        Path runtime = write(out.resolve("lua/tracewire.lua"), DissectorGenerator.runtimeOnly());
        int icons = icons(repo.resolve("icons/png"), out.resolve("icons"));
        System.out.println("PackageFiles: " + pages.size() + " man pages, " + completion + ", " + extcap + ", "
                + runtime + ", " + icons + " icon sizes");
    }

    /**
     * Writes one gzipped roff man page per command (section 1) into {@code dir}.
     *
     * @return the pages written
     */
    static List<Path> manPages(CommandLine cl, Path dir) throws IOException {
        List<CommandSpec> specs = new ArrayList<>();
        specs.add(cl.getCommandSpec());
        for (CommandLine sub : cl.getSubcommands().values()) {
            if (!sub.getCommandName().equals(HELP)) {
                specs.add(sub.getCommandSpec());
            }
        }
        List<Path> pages = new ArrayList<>();
        try (Asciidoctor asciidoctor = Asciidoctor.Factory.create()) {
            Options options = Options.builder().backend("manpage").standalone(true).safe(SafeMode.SAFE).build();
            for (CommandSpec spec : specs) {
                StringWriter adoc = new StringWriter();
                try (PrintWriter pw = new PrintWriter(adoc)) {
                    ManPageGenerator.writeSingleManPage(pw, spec);
                }
                // the usage's "Examples:" heading becomes the man page's EXAMPLES section
                String text = adoc.toString().replaceAll("(?m)^(==+ .*):$", "$1");
                if (spec == cl.getCommandSpec()) {
                    text += seeAlso(specs);
                }
                String roff = asciidoctor.convert(text, options);
                Path page = dir.resolve(spec.qualifiedName("-") + ".1.gz");
                Files.createDirectories(dir);
                // gzip without a time stamp (GZIPOutputStream writes none): the same input gives the same file
                try (OutputStream o = new GZIPOutputStream(Files.newOutputStream(page))) {
                    o.write(roff.getBytes(StandardCharsets.UTF_8));
                }
                pages.add(page);
            }
        }
        return pages;
    }

    /** The main page's SEE ALSO section: each command's page, then the tools tracewire works with. */
    static String seeAlso(List<CommandSpec> specs) {
        List<String> refs = new ArrayList<>();
        for (CommandSpec spec : specs.subList(1, specs.size())) {
            refs.add("*" + spec.qualifiedName("-") + "*(1)");
        }
        refs.addAll(List.of("*tshark*(1)", "*wireshark*(1)", "*trace-cmd*(1)"));
        return "\n== See also\n\n" + String.join(", ", refs) + "\n";
    }

    /** Copies {@code tracewire-N.png} to {@code N}x{@code N/apps/tracewire.png} (the hicolor theme's layout). */
    static int icons(Path png, Path dir) throws IOException {
        int n = 0;
        try (var files = Files.list(png)) {
            for (Path p : (Iterable<Path>) files.sorted()::iterator) {
                Matcher m = ICON.matcher(p.getFileName().toString());
                if (m.matches()) {
                    Path to = dir.resolve(m.group(1) + "x" + m.group(1) + "/apps/tracewire.png");
                    Files.createDirectories(to.getParent());
                    Files.copy(p, to, StandardCopyOption.REPLACE_EXISTING);
                    n++;
                }
            }
        }
        return n;
    }

    private static Path write(Path file, String text) throws IOException {
        Files.createDirectories(file.getParent());
        Files.writeString(file, text);
        return file;
    }
}
