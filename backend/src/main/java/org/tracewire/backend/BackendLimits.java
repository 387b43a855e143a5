package org.tracewire.backend;

/**
 * What one client of the backend may start ({@code docs/backend-protocol.md}, threat model). One
 * capture at a time is a rule of {@link BackendServer} itself.
 *
 * @param maxEvents   events (with their filters) in one {@code startCapture}, at most
 * @param maxBufferKb per-CPU ring buffer size in KiB, at most (the kernel allocates it on every CPU)
 * @param maxSeconds  a capture is stopped by the backend after this many seconds (an {@code error}
 *                    message says so; {@code stopCapture} then returns its final stats)
 */
public record BackendLimits(int maxEvents, int maxBufferKb, long maxSeconds) {
    /** 512 events, 128 MiB per CPU (16 times the default), 24 hours. */
    public static final BackendLimits DEFAULT = new BackendLimits(512, 128 * 1024, 24 * 3600);

    /** Checks the limits are positive. */
    public BackendLimits {
        if (maxEvents < 1 || maxBufferKb < 1 || maxSeconds < 1) {
            throw new IllegalArgumentException("backend limits must be positive: " + maxEvents + ", " + maxBufferKb
                    + ", " + maxSeconds);
        }
    }
}
