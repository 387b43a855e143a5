package org.tracewire.cli;

import java.util.concurrent.Callable;
import org.tracewire.backend.BackendMain;
import picocli.CommandLine.Command;

/**
 * {@code tracewire backend}: the privileged backend ({@link BackendMain}) in this process. The
 * launcher script does not come here: it starts {@link BackendMain} with the capture-backend
 * module's own class path (no GUI library); this subcommand is for in-process use and the help.
 */
@Command(name = "backend", mixinStandardHelpOptions = true,
        description = "Serve the JSON-lines backend protocol on stdin/stdout (for the desktop app).",
        footerHeading = Main.EXAMPLES,
        footer = {"  The desktop app starts it (through pkexec or sudo); by hand, one request a line:",
                "    echo '{\"type\":\"hello\",\"id\":1}' | sudo tracewire backend"})
public final class BackendCommand implements Callable<Integer> {
    @Override
    public Integer call() {
        return BackendMain.serve(System.in, System.out);
    }
}
