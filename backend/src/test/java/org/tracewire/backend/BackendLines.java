package org.tracewire.backend;

import java.io.BufferedReader;
import java.io.OutputStream;
import org.tracewire.protocol.Protocol;

/** Test helpers that talk the backend protocol to a real backend process over its stdin/stdout. */
final class BackendLines {
    private BackendLines() {
    }

    /** Sends one command with an id. */
    static void send(OutputStream out, Object msg, long id) throws Exception {
        out.write(Protocol.encodeLine(msg, id, Protocol.MAX_COMMAND_BYTES));
        out.flush();
    }

    /** The reply to command {@code id} (pushed messages are skipped), as {@code cls}. */
    static <T> T next(BufferedReader in, long id, Class<T> cls) throws Exception {
        while (true) {
            String l = in.readLine();
            if (l == null) {
                throw new AssertionError("the backend ended before replying to " + id);
            }
            Protocol.Envelope e = Protocol.parse(l);
            if (e.id() != null && e.id() == id) {
                if (!e.type().equals(Protocol.typeOf(cls))) {
                    throw new AssertionError("expected " + Protocol.typeOf(cls) + ", got " + l);
                }
                return Protocol.read(e, cls);
            }
        }
    }
}
