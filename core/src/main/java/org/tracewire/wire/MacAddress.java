package org.tracewire.wire;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;

/**
 * A 48-bit Ethernet MAC address held in the low 48 bits of a long, first octet most significant
 * ({@code 02:74:77:69:72:65} is {@code 0x0274_7769_7265L}).
 *
 * @param bits the address in the low 48 bits; the high 16 bits must be zero
 */
public record MacAddress(long bits) {
    /**
     * The fixed tracewire destination address {@code 02:74:77:69:72:65} (0x02 then ASCII
     * {@code "twire"}): locally administered (bit 0x02 of the first octet set), unicast (bit 0x01 clear).
     */
    public static final MacAddress TRACEWIRE = new MacAddress(0x0274_7769_7265L);

    /** Prefix hashed before the host identity so the address does not reveal the machine id. */
    static final String HASH_PREFIX = "tracewire-host-mac\0";

    public MacAddress {
        if ((bits >>> 48) != 0) {
            throw new IllegalArgumentException("MAC address has bits above bit 47: 0x" + Long.toHexString(bits));
        }
    }

    /** The address from 6 bytes, first octet first. */
    public static MacAddress of(byte[] six) {
        if (six.length != 6) {
            throw new IllegalArgumentException("a MAC address has 6 bytes, got " + six.length);
        }
        long v = 0;
        for (byte b : six) {
            v = (v << 8) | (b & 0xff);
        }
        return new MacAddress(v);
    }

    /** Parses {@code "02:74:77:69:72:65"} (colons or dashes, case-insensitive). */
    public static MacAddress parse(String text) {
        String[] parts = text.trim().split("[:-]");
        if (parts.length != 6) {
            throw new IllegalArgumentException("not a MAC address: " + text);
        }
        long v = 0;
        for (String p : parts) {
            if (!p.matches("[0-9a-fA-F]{2}")) {
                throw new IllegalArgumentException("not a MAC address: " + text);
            }
            v = (v << 8) | Integer.parseInt(p, 16);
        }
        return new MacAddress(v);
    }

    /**
     * The source address of a traced host, derived from an identity string: the first 6 bytes of
     * SHA-256 over the UTF-8 bytes of {@code "tracewire-host-mac\0" + identity}, with the first
     * octet's bit 0x02 set (locally administered) and bit 0x01 cleared (unicast). Should that
     * equal {@link #TRACEWIRE}, the last octet is XORed with 0x01.
     *
     * @param identity the trimmed contents of {@code /etc/machine-id}, or the host name
     */
    public static MacAddress forHost(String identity) {
        byte[] d;
        try {
            d = MessageDigest.getInstance("SHA-256")
                    .digest((HASH_PREFIX + identity).getBytes(StandardCharsets.UTF_8));
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("the JDK has no SHA-256", e);
        }
        byte[] six = new byte[6];
        System.arraycopy(d, 0, six, 0, 6);
        six[0] = (byte) ((six[0] & 0xfc) | 0x02);
        MacAddress mac = of(six);
        return mac.equals(TRACEWIRE) ? new MacAddress(mac.bits ^ 1) : mac;
    }

    /**
     * The source address of this host: {@link #forHost(String)} of the trimmed {@code /etc/machine-id}
     * when it is readable and not empty, else of the host name ({@code /proc/sys/kernel/hostname},
     * else the {@code HOSTNAME} environment variable, else {@code "localhost"}).
     */
    public static MacAddress localHost() {
        String id = readTrimmed(Path.of("/etc/machine-id"));
        if (id == null || id.isEmpty()) {
            id = readTrimmed(Path.of("/proc/sys/kernel/hostname"));
        }
        if (id == null || id.isEmpty()) {
            id = System.getenv("HOSTNAME");
        }
        if (id == null || id.isEmpty()) {
            id = "localhost";
        }
        return forHost(id);
    }

    private static String readTrimmed(Path p) {
        try {
            return Files.readString(p, StandardCharsets.UTF_8).trim();
        } catch (IOException | RuntimeException e) {
            return null;
        }
    }

    /** Octet {@code i} (0 = first on the wire). */
    public int octet(int i) {
        return (int) (bits >>> (8 * (5 - i))) & 0xff;
    }

    /** The 6 bytes, first octet first. */
    public byte[] toBytes() {
        byte[] b = new byte[6];
        for (int i = 0; i < 6; i++) {
            b[i] = (byte) octet(i);
        }
        return b;
    }

    /** True when bit 0x02 of the first octet is set. */
    public boolean isLocallyAdministered() {
        return (octet(0) & 0x02) != 0;
    }

    /** True when bit 0x01 of the first octet is set (group address). */
    public boolean isMulticast() {
        return (octet(0) & 0x01) != 0;
    }

    @Override
    public String toString() {
        StringBuilder sb = new StringBuilder(17);
        for (int i = 0; i < 6; i++) {
            if (i > 0) {
                sb.append(':');
            }
            sb.append(Character.forDigit(octet(i) >> 4, 16)).append(Character.forDigit(octet(i) & 15, 16));
        }
        return sb.toString();
    }
}
