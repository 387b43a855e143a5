package org.tracewire.tracedat;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelContext;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.TraceLinePrefix;

/**
 * What renders a trace.dat's records into the kernel's {@code trace} text, the file-side
 * counterpart of {@link KernelContext}: the task names from the file's saved cmdlines, the
 * buffer's clock, the file's kallsyms and printk formats. A trace.dat stores neither
 * {@code CONFIG_HZ} nor BTF enum constants; when the file was recorded on the running kernel
 * ({@link #recordedHere}) and a live tracefs is given, those come from the live kernel (as
 * {@link KernelContext#of} finds them), the symbols and strings still from the file.
 */
public final class TraceDatContext {
    private TraceDatContext() {
    }

    /**
     * @param file the trace.dat
     * @param live the live tracefs to borrow HZ, enums and kernel variables from, or null for the file alone
     * @return the print context
     */
    public static PrintContext printContext(TraceDatFile file, Tracefs live) {
        PrintContext own = file.printContext();
        if (live == null || !live.isLive() || !recordedHere(file)) {
            return own;
        }
        PrintContext k = KernelContext.of(live);
        return new PrintContext(own.symbols() != null ? own.symbols() : k.symbols(), own.printkFormats(), k.hz(),
                k.enums(), k.variables());
    }

    /**
     * A renderer of the kernel's text lines for this file's records.
     *
     * @param file    the trace.dat
     * @param context from {@link #printContext}
     */
    public static KernelTextRenderer renderer(TraceDatFile file, PrintContext context) {
        return new KernelTextRenderer(new TraceLinePrefix(file.cmdlines(), file.clock()), file.kernelLayout(), context);
    }

    /**
     * True when the file's {@code UNAME} option names this machine's host name and kernel release
     * ({@code /proc/sys/kernel/hostname}, {@code osrelease}).
     */
    public static boolean recordedHere(TraceDatFile file) {
        String uname = file.options().uname();
        if (uname == null) {
            return false;
        }
        String[] parts = uname.strip().split("\\s+");
        if (parts.length < 3) {
            return false;
        }
        try {
            String host = Files.readString(Path.of("/proc/sys/kernel/hostname"), StandardCharsets.UTF_8).strip();
            String release = Files.readString(Path.of("/proc/sys/kernel/osrelease"), StandardCharsets.UTF_8).strip();
            return parts[1].equals(host) && parts[2].equals(release);
        } catch (IOException e) {
            return false;
        }
    }
}
