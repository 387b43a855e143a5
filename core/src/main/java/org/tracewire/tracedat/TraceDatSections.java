package org.tracewire.tracedat;

import java.nio.ByteOrder;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatCatalog;
import org.tracewire.format.FormatException;
import org.tracewire.format.FormatParser;
import org.tracewire.format.HeaderEvent;
import org.tracewire.format.HeaderPage;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.symbols.Kallsyms;
import org.tracewire.tracetext.SavedCmdlines;

/**
 * The metadata parts a trace.dat holds in both versions (v6 in a row after the file header, v7 each
 * in its own section), as {@link TraceDatFile} reads them: {@code header_page} and
 * {@code header_event}, the event formats ({@code ftrace}'s, then per system), {@code kallsyms},
 * {@code printk_formats} and {@code saved_cmdlines}, each as stored (text) and parsed. A format that
 * does not parse is kept as a failure of the catalog; unparsable kallsyms or printk text leaves
 * that part empty. Not thread-safe.
 */
final class TraceDatSections {
    private static final Pattern NAME = Pattern.compile("(?m)^name: (\\S+)");

    private final ByteOrder byteOrder;
    String headerPageText;
    String headerEventText;
    HeaderPage headerPage;
    HeaderEvent headerEvent;
    KernelLayout kernelLayout;
    private final List<EventFormat> formats = new ArrayList<>();
    private final Map<String, FormatException> failures = new HashMap<>();
    final Map<String, String> formatTexts = new HashMap<>();
    String kallsymsText = "";
    Kallsyms kallsyms;
    String printkText = "";
    PrintkFormats printk = PrintkFormats.empty();
    String cmdlinesText = "";
    SavedCmdlines cmdlines = SavedCmdlines.empty();

    /** @param byteOrder the file's byte order */
    TraceDatSections(ByteOrder byteOrder) {
        this.byteOrder = byteOrder;
    }

    /** The formats read, sorted by full name, with the failures. */
    FormatCatalog catalog() {
        return new FormatCatalog(formats.stream().sorted(Comparator.comparing(EventFormat::fullName)).toList(), failures);
    }

    void headerInfo(Cursor c) {
        c.expect("header_page\0", "'header_page'");
        long at = c.position();
        headerPageText = c.text(c.size64("header_page"), "header_page");
        try {
            headerPage = FormatParser.parseHeaderPage(headerPageText, "trace.dat header_page");
            kernelLayout = KernelLayout.fromHeaderPage(headerPage, byteOrder);
        } catch (FormatException | IllegalArgumentException e) {
            throw c.error(at, "header_page: " + e.getMessage());
        }
        c.expect("header_event\0", "'header_event'");
        at = c.position();
        headerEventText = c.text(c.size64("header_event"), "header_event");
        try {
            headerEvent = FormatParser.parseHeaderEvent(headerEventText, "trace.dat header_event");
        } catch (FormatException e) {
            throw c.error(at, "header_event: " + e.getMessage());
        }
    }

    void ftraceFormats(Cursor c) {
        long n = c.count32("ftrace format count", 8);
        for (long i = 0; i < n; i++) {
            format(c, "ftrace", i);
        }
    }

    void eventFormats(Cursor c) {
        long systems = c.count32("event system count", 5);
        for (long s = 0; s < systems; s++) {
            String system = c.cstring("system name");
            long n = c.count32("event count of system " + system, 8);
            for (long i = 0; i < n; i++) {
                format(c, system, i);
            }
        }
    }

    private void format(Cursor c, String system, long index) {
        long at = c.position();
        String text = c.text(c.size64(system + " format #" + index), system + " format");
        String label = "trace.dat offset " + at + " " + system + " format #" + index;
        try {
            EventFormat f = FormatParser.parse(system, text, label);
            formats.add(f);
            formatTexts.put(f.fullName(), text);
        } catch (FormatException e) {
            Matcher m = NAME.matcher(text);
            failures.put(system + ":" + (m.find() ? m.group(1) : "#" + index), e);
        }
    }

    void kallsyms(Cursor c) {
        kallsymsText = c.text(c.size32("kallsyms"), "kallsyms");
        try {
            kallsyms = kallsymsText.isBlank() ? null : Kallsyms.parse(kallsymsText);
        } catch (RuntimeException e) {
            kallsyms = null;
        }
    }

    void printk(Cursor c) {
        printkText = c.text(c.size32("printk formats"), "printk formats");
        try {
            printk = PrintkFormats.parse(printkText);
        } catch (RuntimeException e) {
            printk = PrintkFormats.empty();
        }
    }

    void cmdlines(Cursor c) {
        cmdlinesText = c.text(c.size64("saved cmdlines"), "saved cmdlines");
        cmdlines = SavedCmdlines.parse(cmdlinesText);
    }
}
