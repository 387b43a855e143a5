package org.tracewire.cli.archfixture;

import org.tracewire.backend.BackendMain;

/**
 * Test fixture for ArchitectureTest: a class of the command line (a process) that uses the
 * backend's module (another process's), which the layers forbid.
 */
public final class CliUsingBackend {
    /** @return the backend's main class name, reached through the backend module (forbidden) */
    public String backend() {
        return BackendMain.class.getName();
    }
}
