package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.pcap4j.core.PcapNetworkInterface;
import org.pcap4j.core.Pcaps;

/**
 * Frames sent on an existing interface through libpcap (pcap4j), for example one end of a veth
 * pair whose other end sits in another network namespace: remote tracing. tracewire does not
 * create or remove this interface.
 */
public final class InterfaceOutput implements FrameOutput {
    private final String name;
    private final PcapHandle handle;
    private byte[] scratch = new byte[2048];

    /** Opens {@code name} for sending. @throws IOException when it does not exist or libpcap refuses */
    public InterfaceOutput(String name) throws IOException {
        this.name = name;
        try {
            PcapNetworkInterface nif = Pcaps.getDevByName(name);
            if (nif == null) {
                throw new IOException("no interface named " + name);
            }
            this.handle = nif.openLive(65536, PcapNetworkInterface.PromiscuousMode.NONPROMISCUOUS, 10);
        } catch (PcapNativeException e) {
            throw new IOException("libpcap cannot open " + name + ": " + e.getMessage(), e);
        }
    }

    @Override
    public void write(ByteBuffer frame, long timeNs, long lostBefore) throws IOException {
        int n = frame.remaining();
        if (scratch.length < n) {
            scratch = new byte[n];
        }
        frame.get(scratch, 0, n);
        try {
            handle.sendPacket(scratch, n);
        } catch (PcapNativeException | org.pcap4j.core.NotOpenException e) {
            throw new IOException("sending on " + name + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public String describe() {
        return "existing interface " + name;
    }

    @Override
    public void close() {
        handle.close();
    }
}
