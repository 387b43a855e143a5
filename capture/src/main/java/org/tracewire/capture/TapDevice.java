package org.tracewire.capture;

import com.sun.jna.LastErrorException;
import org.tracewire.posix.Posix;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;

/**
 * A TAP interface that tracewire creates through {@code /dev/net/tun} and holds open, so the link
 * has carrier and every Ethernet frame written to it is seen by capture tools on that interface
 * ({@code tshark -i tw0}, dumpcap, tcpdump). Per {@code Documentation/networking/tuntap.rst}:
 * {@code ioctl(fd, TUNSETIFF, {name, IFF_TAP | IFF_NO_PI})}. The device is not persistent: the
 * kernel removes it when the file descriptor closes, also when the process is killed.
 *
 * <p>IPv6 is disabled on the interface before it comes up, so the host's own stack sends nothing
 * (router solicitations, MLD) onto it: what a capture sees there is tracewire's frames only.
 * Not thread-safe: one writer.
 */
public final class TapDevice implements AutoCloseable {
    private static final long TUNSETIFF = 0x400454caL;
    private static final short IFF_TAP = 0x0002;
    private static final short IFF_NO_PI = 0x1000;
    /** Linux IFNAMSIZ minus the NUL. */
    public static final int MAX_NAME = 15;


    private final String name;
    private int fd;
    /** Direct buffers recently written from and their native addresses (the frame sink's scratch buffer). */
    private final ByteBuffer[] buffers = new ByteBuffer[32];
    private final long[] addresses = new long[32];
    private int known;
    private int next;

    private TapDevice(String name, int fd) {
        this.name = name;
        this.fd = fd;
    }

    /**
     * Creates the TAP interface, disables IPv6 on it and brings it up.
     *
     * @param name interface name, at most 15 characters of {@code [A-Za-z0-9_.-]}
     * @return the open device; close it to remove the interface
     * @throws IOException when the name is taken by an existing interface, or the kernel refuses
     *                     (not root: EPERM), with the reason
     */
    public static TapDevice create(String name) throws IOException {
        checkName(name);
        if (Files.exists(Path.of("/sys/class/net", name))) {
            throw new IOException("an interface named " + name + " already exists and is not ours");
        }
        int fd;
        try {
            fd = Posix.open("/dev/net/tun", Posix.O_RDWR);
        } catch (LastErrorException e) {
            throw new IOException("cannot open /dev/net/tun: errno " + e.getErrorCode()
                    + (e.getErrorCode() == 1 || e.getErrorCode() == 13 ? " (needs root or CAP_NET_ADMIN)" : ""), e);
        }
        byte[] ifreq = new byte[40];
        byte[] n = name.getBytes(StandardCharsets.US_ASCII);
        System.arraycopy(n, 0, ifreq, 0, n.length);
        short flags = (short) (IFF_TAP | IFF_NO_PI);
        ifreq[16] = (byte) (flags & 0xff);
        ifreq[17] = (byte) ((flags >> 8) & 0xff);
        try {
            Posix.ioctl(fd, TUNSETIFF, ifreq);
        } catch (LastErrorException e) {
            closeQuietly(fd);
            throw new IOException("TUNSETIFF " + name + " failed: errno " + e.getErrorCode()
                    + (e.getErrorCode() == 1 ? " (needs root or CAP_NET_ADMIN)" : ""), e);
        }
        TapDevice tap = new TapDevice(name, fd);
        try {
            Path ipv6 = Path.of("/proc/sys/net/ipv6/conf", name, "disable_ipv6");
            if (Files.exists(ipv6)) {
                Files.writeString(ipv6, "1");
            }
            run("ip", "link", "set", "dev", name, "up");
        } catch (IOException e) {
            tap.close();
            throw e;
        }
        return tap;
    }

    /** The interface name. */
    public String name() {
        return name;
    }

    /**
     * Writes one Ethernet frame (destination MAC first, no FCS) from {@code frame}'s position to
     * its limit. {@code frame} must be a direct buffer.
     *
     * @throws IOException when the kernel refuses the frame
     */
    public void write(ByteBuffer frame) throws IOException {
        if (fd < 0) {
            throw new IOException(name + " is closed");
        }
        int len = frame.remaining();
        try {
            long n = Posix.write(fd, address(frame) + frame.position(), len);
            if (n != len) {
                throw new IOException("short write to " + name + ": " + n + " of " + len + " bytes");
            }
        } catch (LastErrorException e) {
            throw new IOException("write to " + name + " failed: errno " + e.getErrorCode(), e);
        }
        frame.position(frame.limit());
    }

    /** The native address of a direct buffer, remembered for the last few buffers seen. */
    private long address(ByteBuffer frame) {
        for (int i = 0; i < known; i++) {
            if (buffers[i] == frame) {
                return addresses[i];
            }
        }
        long a = Posix.address(frame);
        int slot = known < buffers.length ? known++ : next++ % buffers.length;
        buffers[slot] = frame;
        addresses[slot] = a;
        return a;
    }

    /** Closes the device; the kernel removes the interface. Idempotent. */
    @Override
    public void close() {
        if (fd >= 0) {
            closeQuietly(fd);
            fd = -1;
        }
    }

    /**
     * Validates an interface name: 1..15 characters of letters, digits, {@code _ . -}.
     *
     * @throws IllegalArgumentException otherwise
     */
    public static void checkName(String name) {
        if (name == null || name.isEmpty() || name.length() > MAX_NAME || !name.matches("[A-Za-z0-9_.-]+")
                || name.equals(".") || name.equals("..")) {
            throw new IllegalArgumentException("not a valid interface name: '" + name + "' (1-15 of A-Z a-z 0-9 _ . -)");
        }
    }

    private static void closeQuietly(int fd) {
        try {
            Posix.close(fd);
        } catch (LastErrorException ignored) {
            // the descriptor is gone either way
        }
    }

    private static void run(String... cmd) throws IOException {
        Process p = new ProcessBuilder(cmd).redirectErrorStream(true).start();
        try {
            if (!p.waitFor(10, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IOException(String.join(" ", cmd) + " timed out");
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IOException("interrupted: " + String.join(" ", cmd), e);
        }
        if (p.exitValue() != 0) {
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
            throw new IOException(String.join(" ", cmd) + " failed: " + out);
        }
    }
}
