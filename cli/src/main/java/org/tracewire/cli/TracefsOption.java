package org.tracewire.cli;

import java.io.PrintWriter;
import java.nio.file.Path;
import org.tracewire.tracefs.Tracefs;
import org.tracewire.tracefs.TracefsLocator;
import picocli.CommandLine.Option;

/**
 * {@code --tracefs DIR}, the option of every command that reads formats ({@code formats},
 * {@code list}, {@code filter}, {@code dissector}): one definition, mixed in with picocli's
 * {@code @Mixin}, resolved by {@link TracefsLocator}.
 */
final class TracefsOption {
    @Option(names = "--tracefs", paramLabel = "DIR", description = "A tracefs mount or snapshot directory, holding "
            + "events/ (default: the live tracefs when readable, else the snapshot).")
    Path dir;

    /**
     * The tracefs to read: {@code --tracefs DIR}, else the live one when readable, else the
     * snapshot, with a note on {@code err} ({@code "COMMAND: note"}) when it falls back.
     */
    Tracefs resolve(String command, PrintWriter err) {
        return TracefsLocator.resolve(dir, note -> err.println(command + ": " + note));
    }
}
