package org.tracewire.wire;

import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * One context message ({@code docs/wire-format.md} §4): a kind and a list of items, each a u16
 * type, a u32 length and the value bytes, all big-endian. Immutable. The item types of each kind
 * are the constants of §4.1–4.5 ({@code CAPTURE_*}, {@code FORMAT_*}, …).
 *
 * @param kind  a context kind (not {@link FrameKind#EVENT})
 * @param items the items in order
 */
public record ContextMessage(FrameKind kind, List<Item> items) {
    /** Bytes before an item's value: u16 type, u32 length. */
    public static final int ITEM_HEAD = 6;

    // CAPTURE (§4.1)
    public static final int CAPTURE_ID = 1, CAPTURE_KERNEL_RELEASE = 2, CAPTURE_BOOT_ID = 3, CAPTURE_HOST = 4,
            CAPTURE_CLOCK = 5, CAPTURE_CLOCK_OFFSET = 6, CAPTURE_CLOCK_ERROR = 7, CAPTURE_LONG_SIZE = 8,
            CAPTURE_BYTE_ORDER = 9, CAPTURE_HEADER_PAGE = 10, CAPTURE_HEADER_EVENT = 11, CAPTURE_CONSTANTS = 12,
            CAPTURE_VERSION = 13, CAPTURE_EVENTS = 14;
    // FORMAT (§4.2)
    public static final int FORMAT_ID = 1, FORMAT_NAME = 2, FORMAT_TEXT = 3, FORMAT_DESCRIPTION = 4,
            FORMAT_ENUMS = 5;
    // SYMBOLS (§4.3)
    public static final int SYMBOL = 1, SYMBOL_PRINTK = 2, SYMBOL_UNKNOWN = 3, USER_SYMBOL = 4,
            USER_SYMBOL_UNKNOWN = 5, USER_OBJECT = 6;
    // PROCESS (§4.4)
    public static final int PROCESS_TASK = 1;
    // LOST (§4.5)
    public static final int LOST_EVENTS = 1;

    /**
     * One item.
     *
     * @param type  0..65535, meaning per kind
     * @param value the bytes (not copied: do not change them)
     */
    public record Item(int type, byte[] value) {
        public Item {
            if (type < 0 || type > 0xffff) {
                throw new IllegalArgumentException("item type " + type + " outside 0..65535");
            }
            Objects.requireNonNull(value, "value");
        }

        /** The value as UTF-8 text (malformed bytes replaced). */
        public String text() {
            return new String(value, StandardCharsets.UTF_8);
        }

        /** The value as a big-endian integer of its length (1, 2, 4 or 8 bytes; u8/u16/u32 unsigned, 8 signed). */
        public long number() {
            ByteBuffer b = ByteBuffer.wrap(value);
            return switch (value.length) {
                case 1 -> value[0] & 0xff;
                case 2 -> b.getShort() & 0xffff;
                case 4 -> b.getInt() & 0xffff_ffffL;
                case 8 -> b.getLong();
                default -> throw new WireFormatException(0, "item " + type + ": a number of " + value.length
                        + " bytes (1, 2, 4 or 8 expected)");
            };
        }

        /** The value as a big-endian buffer. */
        public ByteBuffer buffer() {
            return ByteBuffer.wrap(value).asReadOnlyBuffer();
        }

        @Override
        public boolean equals(Object o) {
            return o instanceof Item i && i.type == type && Arrays.equals(i.value, value);
        }

        @Override
        public int hashCode() {
            return 31 * type + Arrays.hashCode(value);
        }

        @Override
        public String toString() {
            return "Item[" + type + ", " + value.length + " bytes]";
        }
    }

    public ContextMessage {
        Objects.requireNonNull(kind, "kind");
        if (!kind.isContext()) {
            throw new IllegalArgumentException("EVENT is not a context kind");
        }
        items = List.copyOf(items);
    }

    /** A builder for a message of this kind. */
    public static Builder builder(FrameKind kind) {
        return new Builder(kind);
    }

    /** The first item of this type, or null. */
    public Item first(int type) {
        for (Item i : items) {
            if (i.type == type) {
                return i;
            }
        }
        return null;
    }

    /** The first item of this type as text, or null. */
    public String text(int type) {
        Item i = first(type);
        return i == null ? null : i.text();
    }

    /** All items of this type, in order. */
    public List<Item> all(int type) {
        List<Item> r = new ArrayList<>();
        for (Item i : items) {
            if (i.type == type) {
                r.add(i);
            }
        }
        return r;
    }

    /** The message bytes (§4: items back to back). */
    public byte[] toBytes() {
        int n = 0;
        for (Item i : items) {
            n += ITEM_HEAD + i.value.length;
        }
        ByteBuffer b = ByteBuffer.allocate(n);
        for (Item i : items) {
            b.putShort((short) i.type).putInt(i.value.length).put(i.value);
        }
        return b.array();
    }

    /**
     * Parses message bytes. An item whose head or value runs past the end ends the message: the
     * items before it are kept and {@code truncated} says so (§8).
     *
     * @return the message and whether it was cut
     */
    public static Parsed parse(FrameKind kind, byte[] bytes) {
        List<Item> items = new ArrayList<>();
        int p = 0;
        boolean cut = false;
        ByteBuffer b = ByteBuffer.wrap(bytes);
        while (p < bytes.length) {
            if (bytes.length - p < ITEM_HEAD) {
                cut = true;
                break;
            }
            int type = b.getShort(p) & 0xffff;
            long len = b.getInt(p + 2) & 0xffff_ffffL;
            if (len > bytes.length - p - ITEM_HEAD) {
                cut = true;
                break;
            }
            items.add(new Item(type, Arrays.copyOfRange(bytes, p + ITEM_HEAD, p + ITEM_HEAD + (int) len)));
            p += ITEM_HEAD + (int) len;
        }
        return new Parsed(new ContextMessage(kind, items), cut, p);
    }

    /**
     * A parsed message.
     *
     * @param message   the items read
     * @param truncated true when an item ran past the end (the rest was dropped)
     * @param badOffset where the bad item starts, in the message bytes (= length when not truncated)
     */
    public record Parsed(ContextMessage message, boolean truncated, int badOffset) {
    }

    /** Builds a message item by item (not thread-safe). */
    public static final class Builder {
        private final FrameKind kind;
        private final List<Item> items = new ArrayList<>();

        private Builder(FrameKind kind) {
            this.kind = kind;
        }

        /** Adds raw bytes. */
        public Builder bytes(int type, byte[] value) {
            items.add(new Item(type, value.clone()));
            return this;
        }

        /** Adds a UTF-8 string (skipped when null). */
        public Builder text(int type, String value) {
            if (value != null) {
                items.add(new Item(type, value.getBytes(StandardCharsets.UTF_8)));
            }
            return this;
        }

        /** Adds a u8. */
        public Builder u8(int type, int value) {
            items.add(new Item(type, new byte[] {(byte) value}));
            return this;
        }

        /** Adds a u16, big-endian. */
        public Builder u16(int type, int value) {
            items.add(new Item(type, new byte[] {(byte) (value >>> 8), (byte) value}));
            return this;
        }

        /** Adds an 8-byte big-endian integer (u64 or s64). */
        public Builder u64(int type, long value) {
            items.add(new Item(type, ByteBuffer.allocate(8).putLong(value).array()));
            return this;
        }

        /** Adds a SYMBOLS item 1: address, symbol start, size and name ({@code name [module]} for modules). */
        public Builder symbol(long address, long start, long size, String name) {
            byte[] n = name.getBytes(StandardCharsets.UTF_8);
            items.add(new Item(SYMBOL, ByteBuffer.allocate(20 + n.length).putLong(address).putLong(start)
                    .putInt((int) size).put(n).array()));
            return this;
        }

        /**
         * Adds a SYMBOLS item 4: a user-space function of process {@code tgid} covering an address
         * (s32 tgid, u64 address, u64 start, u32 size, then {@code name [file]}).
         */
        public Builder userSymbol(int tgid, long address, long start, long size, String name) {
            byte[] n = name.getBytes(StandardCharsets.UTF_8);
            items.add(new Item(USER_SYMBOL, ByteBuffer.allocate(24 + n.length).putInt(tgid).putLong(address)
                    .putLong(start).putInt((int) Math.min(size, 0xffff_ffffL)).put(n).array()));
            return this;
        }

        /**
         * Adds a SYMBOLS item 6: the GNU build id ({@code NT_GNU_BUILD_ID} note) of the ELF file process
         * {@code tgid} maps under the name {@code file} (the {@code [file]} of its items 4): s32 tgid, u8
         * length n, n bytes of build id, then the file name (string to the item end).
         *
         * @throws IllegalArgumentException when the build id is empty or longer than 255 bytes
         */
        public Builder userObject(int tgid, byte[] buildId, String file) {
            if (buildId.length == 0 || buildId.length > 255) {
                throw new IllegalArgumentException("build id of " + buildId.length + " bytes (1..255)");
            }
            byte[] n = file.getBytes(StandardCharsets.UTF_8);
            items.add(new Item(USER_OBJECT, ByteBuffer.allocate(5 + buildId.length + n.length).putInt(tgid)
                    .put((byte) buildId.length).put(buildId).put(n).array()));
            return this;
        }

        /** Adds a SYMBOLS item 5: a user-space address of process {@code tgid} the sender could not resolve. */
        public Builder userUnknown(int tgid, long address) {
            items.add(new Item(USER_SYMBOL_UNKNOWN, ByteBuffer.allocate(12).putInt(tgid).putLong(address).array()));
            return this;
        }

        /** Adds a SYMBOLS item 2: a printk string at an address. */
        public Builder printk(long address, String text) {
            byte[] n = text.getBytes(StandardCharsets.UTF_8);
            items.add(new Item(SYMBOL_PRINTK, ByteBuffer.allocate(8 + n.length).putLong(address).put(n).array()));
            return this;
        }

        /** Adds a PROCESS item 1: pid, tgid, comm (cut to 16 bytes). */
        public Builder task(int pid, int tgid, String comm) {
            byte[] n = comm.getBytes(StandardCharsets.UTF_8);
            if (n.length > 16) {
                n = Arrays.copyOf(n, 16);
            }
            items.add(new Item(PROCESS_TASK, ByteBuffer.allocate(8 + n.length).putInt(pid).putInt(tgid).put(n).array()));
            return this;
        }

        /** True when no item was added. */
        public boolean isEmpty() {
            return items.isEmpty();
        }

        /** The message. */
        public ContextMessage build() {
            return new ContextMessage(kind, items);
        }
    }

}
