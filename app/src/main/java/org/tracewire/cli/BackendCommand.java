package org.tracewire.cli;

import java.util.concurrent.Callable;
import org.tracewire.backend.BackendServer;
import org.tracewire.capture.FrameOutputs;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracetext.KernelContext;
import org.tracewire.tracetext.KernelTextRenderer;
import org.tracewire.tracetext.SavedCmdlines;
import org.tracewire.tracetext.TraceLinePrefix;
import org.tracewire.wire.WireFrame;
import java.nio.file.Path;
import picocli.CommandLine.Command;

/**
 * {@code tracewire backend}: the capture engine driven by JSON-lines commands on stdin, for the
 * desktop app ({@code docs/backend-protocol.md}). Serves the live tracefs when readable (root),
 * else the snapshot (metadata only). Exits 0 at end of input or {@code quit}.
 */
@Command(name = "backend", description = "Serve the JSON-lines backend protocol on stdin/stdout (for the desktop app).")
public final class BackendCommand implements Callable<Integer> {
    @Override
    public Integer call() throws Exception {
        Tracefs tracefs = TracefsSource.resolve(null, new java.io.PrintWriter(System.err, true), "backend");
        BackendServer server = new BackendServer(tracefs, System.out, (iface, pcapng, t, session) ->
                FrameOutputs.open(t.formats(), session, iface, null, pcapng == null ? null : Path.of(pcapng),
                        WireFrame.DEFAULT_MAX_FRAME), t -> {
            KernelTextRenderer renderer = new KernelTextRenderer(new TraceLinePrefix(SavedCmdlines.empty(), "mono"),
                    t.layout(), KernelContext.of(t));
            return renderer::body;
        });
        server.serve(System.in);
        return 0;
    }
}
