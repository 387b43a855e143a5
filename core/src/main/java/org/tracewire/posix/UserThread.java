package org.tracewire.posix;

import com.sun.jna.LastErrorException;
import java.io.IOException;

/**
 * The thread that acts with an {@link InvokingUser}'s file-system credentials
 * ({@link InvokingUser#act}): its supplementary groups, fsgid and fsuid, and no effective
 * capabilities, set per thread on a fresh thread that ends with the work, so no thread of the
 * process ever goes back to root's credentials.
 */
final class UserThread {
    private UserThread() {
    }

    /** {@link InvokingUser#act}: {@code work} with {@code u}'s credentials (a fresh thread when this process is root acting for another user). */
    static <T> T act(InvokingUser u, InvokingUser.AsUser<T> work) throws IOException {
        int euid = Posix.geteuid();
        if (u.uid() == euid) {
            return work.call();
        }
        if (euid != 0) {
            throw new IOException("cannot act for " + u.who() + ": this process (uid " + euid + ") is not root");
        }
        Object[] result = new Object[1];
        Throwable[] failure = new Throwable[1];
        Thread t = new Thread(() -> {
            try {
                become(u);
                result[0] = work.call();
            } catch (Throwable e) {
                failure[0] = e;
            }
        }, "tracewire-as-uid-" + u.uid());
        t.start();
        boolean interrupted = false;
        while (true) {
            try {
                t.join();
                break;
            } catch (InterruptedException e) {
                interrupted = true; // the work is short (or bounded, as a FIFO's wait): finish it
            }
        }
        if (interrupted) {
            Thread.currentThread().interrupt();
        }
        if (failure[0] instanceof IOException e) {
            throw e;
        }
        if (failure[0] instanceof RuntimeException e) {
            throw e;
        }
        if (failure[0] != null) {
            throw new IOException("acting for " + u.who() + ": " + failure[0], failure[0]);
        }
        @SuppressWarnings("unchecked")
        T r = (T) result[0];
        return r;
    }

    /** Takes on this user's file-system credentials on the calling thread (see {@link InvokingUser#act}). */
    private static void become(InvokingUser u) throws IOException {
        int[] g = u.groups().stream().mapToInt(Integer::intValue).toArray();
        int fsgid = u.gid() >= 0 ? u.gid() : 65534;
        try {
            Posix.syscall(Posix.SYS_SETGROUPS, g.length, g.length == 0 ? new int[1] : g);
            Posix.setfsgid(fsgid);
            Posix.setfsuid(u.uid());
            if (Posix.setfsuid(-1) != u.uid() || Posix.setfsgid(-1) != fsgid) {
                throw new IOException("cannot take on the file-system credentials of " + u.who());
            }
            int[] header = {Posix.CAPABILITY_VERSION_3, 0};
            int[] data = new int[6];
            Posix.capget(header, data);
            data[0] = 0; // effective, capabilities 0-31
            data[3] = 0; // effective, capabilities 32-63
            Posix.capset(header, data);
        } catch (LastErrorException e) {
            throw new IOException("cannot take on the credentials of " + u.who() + " (errno " + e.getErrorCode() + ")");
        }
    }
}
