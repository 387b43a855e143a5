package org.tracewire.capture;

import java.io.IOException;
import java.nio.ByteBuffer;
import org.pcap4j.core.NotOpenException;
import org.pcap4j.core.PcapHandle;
import org.pcap4j.core.PcapNativeException;
import org.pcap4j.core.PcapNetworkInterface;
import org.pcap4j.core.Pcaps;
import org.tracewire.wire.MacAddress;

/**
 * Frames sent on an existing interface through libpcap (pcap4j), for example one end of a veth
 * pair whose other end sits in another network namespace: remote tracing. Frames go in Ethernet
 * ({@link EthernetFraming}); the capture's context is repeated every 2 s. tracewire does not create
 * or remove this interface.
 */
public final class InterfaceOutput implements FrameOutput {
    private final String name;
    private final PcapHandle handle;
    private final EthernetFraming framing;
    private byte[] scratch = new byte[2048];

    /**
     * Opens {@code name} for sending.
     *
     * @param source   the frames' Ethernet source (the traced host)
     * @param maxFrame largest Ethernet frame, bytes (event frames beyond it are cut and flagged)
     * @throws IOException when it does not exist or libpcap refuses
     */
    public InterfaceOutput(String name, MacAddress source, int maxFrame) throws IOException {
        this.name = name;
        this.framing = new EthernetFraming(source, maxFrame);
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

    /** Frames sent (emitting thread; read at the end). */
    private long frames;

    @Override
    public long frames() {
        return frames;
    }

    @Override
    public void write(ByteBuffer frame, long timeNs, long lostBefore) throws IOException {
        framing.frame(frame);
        int n = frame.remaining();
        if (scratch.length < n) {
            scratch = new byte[n];
        }
        frame.get(scratch, 0, n);
        framing.restore(frame);
        try {
            handle.sendPacket(scratch, n);
            frames++;
        } catch (PcapNativeException | NotOpenException e) {
            throw new IOException("sending on " + name + " failed: " + e.getMessage(), e);
        }
    }

    @Override
    public boolean repeatsContext() {
        return true;
    }

    @Override
    public long truncated() {
        return framing.truncated();
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
