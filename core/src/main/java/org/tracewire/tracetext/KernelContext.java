package org.tracewire.tracetext;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.zip.GZIPInputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.tracewire.printfmt.KernelVariables;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.symbols.Kallsyms;
import org.tracewire.symbols.KernelEnums;
import org.tracewire.tracefs.OwnInstances;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsInstance;

/**
 * Builds the {@link PrintContext} of a tracefs tree: its {@code printk_formats}; for the live
 * kernel also {@code /proc/kallsyms} (real addresses as root), {@code CONFIG_HZ} from
 * {@code /proc/config.gz}, BTF enum constants, and kernel variables learned by
 * {@link #calibrate calibration}. What is missing stays unknown, and the print fmts that need it fall
 * back to {@code name=value} text.
 */
public final class KernelContext {
    private KernelContext() {
    }

    /** The context for records of this tree's kernel. Never throws: unreadable parts stay unknown. */
    public static PrintContext of(Tracefs tracefs) {
        PrintkFormats printk = printk(tracefs);
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
        KernelVariables variables = null;
        if (tracefs.isLive()) {
            Tracefs top = tracefs instanceof TracefsInstance i ? i.parent() : tracefs;
            variables = calibrated(top);
        }
        return new PrintContext(symbols, printk, hz, enums, variables);
    }

    /**
     * The tree's {@code printk_formats}: empty when it has none or it does not parse, so the
     * strings it would name stay unknown and their print fmts fall back.
     */
    public static PrintkFormats printk(Tracefs tracefs) {
        if (!tracefs.exists("printk_formats")) {
            return PrintkFormats.empty();
        }
        try {
            return PrintkFormats.parse(tracefs.read("printk_formats"));
        } catch (RuntimeException ignored) {
            return PrintkFormats.empty();
        }
    }

    private static volatile KernelVariables calibration;

    /**
     * The kernel variables of this host, {@link #calibrate calibrated} once per JVM and then
     * cached: the values hold until the next boot. The one cache for every live context (the
     * text renderer's and a capture's), so a process calibrates at most once.
     *
     * @param top the live top-level tracefs (the scratch instance is made under it)
     * @return the variables, or {@link KernelVariables#empty()} when calibration learned nothing
     */
    public static KernelVariables calibrated(Tracefs top) {
        KernelVariables v = calibration;
        if (v == null) {
            synchronized (KernelContext.class) {
                v = calibration;
                if (v == null) {
                    v = calibrate(top);
                    calibration = v;
                }
            }
        }
        return v;
    }

    private static final Pattern PAGE = Pattern.compile("page=([0-9a-f]{8,16}) pfn=0x([0-9a-f]+) ");

    /**
     * Learns {@code vmemmap_base} and {@code sizeof(struct page)} from the kernel's own text: in a
     * scratch instance ({@code tracewire-calib-<pid>}, {@code nohash-ptr}, removed afterwards)
     * {@code kmem:mm_page_alloc} and {@code mm_page_free} are recorded for a moment, and their
     * lines {@code page=ffffea0005474540 pfn=0x151d15} give
     * {@code sizeof(struct page) = Δpage / Δpfn} and {@code vmemmap_base = page − pfn × size},
     * checked against every line. Returns nothing known when the events are missing, tracefs is
     * not writable, or the lines disagree.
     */
    public static KernelVariables calibrate(Tracefs top) {
        if (!top.exists("events/kmem/mm_page_alloc/enable") || !top.exists("events/kmem/mm_page_free/enable")) {
            return KernelVariables.empty();
        }
        String text;
        try {
            try (TracefsInstance inst = OwnInstances.create(top, "calib")) {
                inst.setOption("nohash-ptr");
                inst.setEnabled("kmem", "mm_page_alloc", true);
                inst.setEnabled("kmem", "mm_page_free", true);
                for (int i = 0; i < 20; i++) {
                    byte[][] touch = new byte[64][];
                    for (int k = 0; k < touch.length; k++) {
                        touch[k] = new byte[64 * 1024];
                    }
                    Files.write(Files.createTempFile("tracewire-calib", ".tmp"), touch[0]).toFile().delete();
                    Thread.sleep(5);
                }
                inst.setTracingOn(false);
                text = inst.read("trace");
            }
        } catch (RuntimeException | IOException e) {
            return KernelVariables.empty();
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return KernelVariables.empty();
        }
        List<long[]> samples = new ArrayList<>();
        Matcher m = PAGE.matcher(text);
        while (m.find() && samples.size() < 10_000) {
            samples.add(new long[] {Long.parseUnsignedLong(m.group(1), 16), Long.parseUnsignedLong(m.group(2), 16)});
        }
        long size = 0;
        for (int i = 1; i < samples.size() && size == 0; i++) {
            long dPfn = samples.get(i)[1] - samples.get(0)[1];
            long dPage = samples.get(i)[0] - samples.get(0)[0];
            if (dPfn != 0 && dPage % dPfn == 0 && dPage / dPfn > 0 && dPage / dPfn <= 4096) {
                size = dPage / dPfn;
            }
        }
        if (size == 0) {
            return KernelVariables.empty();
        }
        long base = samples.get(0)[0] - samples.get(0)[1] * size;
        for (long[] s : samples) {
            if (s[0] != base + s[1] * size) {
                return KernelVariables.empty();
            }
        }
        return new KernelVariables(Map.of("vmemmap_base", base), Map.of("page", (int) size));
    }

    /**
     * {@code CONFIG_HZ} from a gzipped kernel config ({@code /proc/config.gz}), or 0 when unknown
     * (unreadable, no such line).
     */
    public static int configHz(Path configGz) {
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
