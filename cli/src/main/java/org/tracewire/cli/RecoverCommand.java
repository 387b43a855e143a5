package org.tracewire.cli;

import java.io.IOException;
import java.io.PrintWriter;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import org.tracewire.capture.Recovery;
import org.tracewire.tracefs.Tracefs;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Parameters;
import picocli.CommandLine.Spec;

/**
 * {@code tracewire recover FILE.pcapng}: finishes the file of a capture that was killed
 * ({@link Recovery}, docs/capture-recovery.md): cut back to its last whole block, the events still
 * in its spool ({@code FILE.pcapng.tw-spool/}) framed into it, the losses counted, its statistics
 * block written, the spool removed. Run as root on the machine and boot that captured. Exit 0 when
 * the file is complete, 1 when it cannot be recovered.
 */
@Command(name = "recover", mixinStandardHelpOptions = true,
        description = "Finish the pcapng of a killed capture: frame the events left in FILE.pcapng.tw-spool/ into it.",
        footerHeading = Main.EXAMPLES,
        footer = {"  After `sudo tracewire capture ... -w sched.pcapng` was killed (kill -9):",
                "    sudo tracewire recover sched.pcapng"})
final class RecoverCommand implements Callable<Integer> {
    @Parameters(index = "0", paramLabel = "FILE.pcapng", description = "The killed capture's file (-w FILE).")
    Path file;

    @Spec
    CommandSpec spec;

    @Override
    public Integer call() {
        PrintWriter out = spec.commandLine().getOut();
        PrintWriter err = spec.commandLine().getErr();
        try {
            Recovery.Result r = Recovery.recover(Tracefs.live(), file);
            out.println(r.describe(file));
            out.flush();
            return 0;
        } catch (IOException | RuntimeException e) {
            err.println("recover: " + e.getMessage());
            err.flush();
            return Main.EXIT_FAILURE;
        }
    }
}
