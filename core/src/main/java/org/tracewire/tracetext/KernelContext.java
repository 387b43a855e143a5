package org.tracewire.tracetext;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.symbols.Kallsyms;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.tracefs.Tracefs;

/**
 * Builds the {@link PrintContext} of a tracefs tree: its {@code printk_formats}; for the live
 * kernel also {@code /proc/kallsyms} (real addresses as root) and {@code CONFIG_HZ} from
 * {@code /proc/config.gz}. What is missing stays unknown, and the print fmts that need it fall
 * back to {@code name=value} text.
 */
public final class KernelContext {
    private KernelContext() {
    }

    /** The context for records of this tree's kernel. Never throws: unreadable parts stay unknown. */
    public static PrintContext of(Tracefs tracefs) {
        PrintkFormats printk = PrintkFormats.empty();
        if (tracefs.exists("printk_formats")) {
            try {
                printk = PrintkFormats.parse(tracefs.read("printk_formats"));
            } catch (RuntimeException ignored) {
                // unknown strings fall back
            }
        }
        Kallsyms symbols = null;
        KernelEnums enums = null;
        int hz = 0;
        if (tracefs.isLive()) {
            try {
                symbols = Kallsyms.load(Path.of("/proc/kallsyms"));
            } catch (IOException | RuntimeException ignored) {
                // %pS falls back
            }
            hz = configHz(Path.of("/proc/config.gz"));
            try {
                enums = KernelEnums.load(Path.of("/sys/kernel/btf/vmlinux"));
            } catch (IOException | RuntimeException ignored) {
                // unresolved enum names in print fmts fall back
            }
        }
        return new PrintContext(symbols, printk, hz, enums);
    }

    /** {@code CONFIG_HZ} from a gzipped kernel config, or 0 when unknown. */
    static int configHz(Path configGz) {
        if (!Files.isReadable(configGz)) {
            return 0;
        }
        try (InputStream in = new GZIPInputStream(Files.newInputStream(configGz))) {
            for (String line : new String(in.readAllBytes(), StandardCharsets.UTF_8).split("\n")) {
                if (line.startsWith("CONFIG_HZ=")) {
                    return Integer.parseInt(line.substring("CONFIG_HZ=".length()).strip());
                }
            }
        } catch (IOException | NumberFormatException ignored) {
            // unknown
        }
        return 0;
    }
}
