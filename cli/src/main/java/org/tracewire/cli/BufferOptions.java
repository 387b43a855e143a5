package org.tracewire.cli;

import org.tracewire.capture.CaptureSession;
import picocli.CommandLine.Option;

/**
 * The ring-buffer options every capturing command takes ({@code capture}, {@code extcap}): one
 * definition, mixed in with picocli's {@code @Mixin}.
 */
final class BufferOptions {
    @Option(names = "--buffer-kb", paramLabel = "N", defaultValue = "" + CaptureSession.DEFAULT_BUFFER_KB,
            description = "Per-CPU ring buffer size in KiB (default: ${DEFAULT-VALUE}; 0 keeps the kernel's).")
    int bufferKb;

    @Option(names = "--clock", paramLabel = "CLOCK", defaultValue = "mono",
            description = "Trace clock (default: ${DEFAULT-VALUE}; the instance's trace_clock lists the kernel's).")
    String clock;
}
