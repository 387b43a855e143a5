package org.tracewire.testing;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;

/**
 * A workload for live tests: one TCP connection over the loopback interface, a client writing and
 * a server thread reading everything, so net, skb and sched events occur (kfree_skb, consume_skb,
 * net_dev_xmit, the wakeups between the two). Only the traffic matters; neither side asserts.
 */
public final class LoopbackTraffic {
    private LoopbackTraffic() {
    }

    /**
     * Sends {@code writes} writes of {@code size} zero bytes each to a server thread on an ephemeral
     * loopback port, then waits up to 5 s for the server to have read them.
     *
     * @throws IOException          when the socket cannot be opened or written
     * @throws InterruptedException when interrupted while waiting for the server thread
     */
    public static void send(int writes, int size) throws IOException, InterruptedException {
        try (ServerSocket server = new ServerSocket(0, 1, InetAddress.getLoopbackAddress())) {
            Thread t = new Thread(() -> {
                try (Socket s = server.accept(); InputStream in = s.getInputStream()) {
                    in.readAllBytes();
                } catch (IOException ignored) {
                    // the client's traffic is what the tests need
                }
            });
            t.start();
            try (Socket c = new Socket(InetAddress.getLoopbackAddress(), server.getLocalPort());
                 OutputStream out = c.getOutputStream()) {
                for (int i = 0; i < writes; i++) {
                    out.write(new byte[size]);
                }
            }
            t.join(5000);
        }
    }
}
