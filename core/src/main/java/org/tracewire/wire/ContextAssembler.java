package org.tracewire.wire;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Reassembles context messages from their fragments ({@code docs/wire-format.md} §4), per scope
 * (the Ethernet source or the pcapng interface), kind and message id. Fragments may come in any
 * order and more than once (live repetition); a message is returned once, when its last missing
 * fragment arrives. Memory is bounded: at most {@link #MAX_PENDING} incomplete messages and
 * {@link #MAX_PENDING_BYTES} bytes of them (the oldest are dropped), {@link #MAX_MESSAGE} bytes per
 * message (larger ones are refused). Not thread-safe.
 */
public final class ContextAssembler {
    /** Most incomplete messages kept. */
    public static final int MAX_PENDING = 64;
    /** Largest message accepted, bytes (16 MiB). */
    public static final int MAX_MESSAGE = 16 << 20;
    /** Most bytes of incomplete messages held at once (64 MiB). */
    public static final long MAX_PENDING_BYTES = 64L << 20;

    private record Key(Object scope, FrameKind kind, long id) {
    }

    private static final class Pending {
        final byte[] bytes;
        final boolean[] have;
        int missing;
        int fragmentSize = -1;

        Pending(int length, int count) {
            bytes = new byte[length];
            have = new boolean[count];
            missing = count;
        }
    }

    private final Map<Key, Pending> pending = new HashMap<>();
    private final List<Key> order = new ArrayList<>();
    private long dropped;
    private long pendingBytes;

    /**
     * Adds one context frame.
     *
     * @param scope the scope: the frame's {@link WireFrame#source()} or the pcapng interface id
     * @return the complete message when this fragment completed it, else null
     * @throws WireFormatException when the fragment contradicts earlier fragments of the same message
     *                             (another length or count, a position past the end) or the message
     *                             is larger than {@link #MAX_MESSAGE}; the message is then forgotten
     */
    public ContextMessage.Parsed add(Object scope, WireFrame frame) {
        ContextFragment f = Objects.requireNonNull(frame.fragment(), "not a context frame");
        FrameKind kind = frame.kind();
        if (f.count() == 1) {
            if (f.bytes().length != f.messageLength()) {
                throw new WireFormatException(WireHeader.SIZE + 8, "single fragment of " + f.bytes().length
                        + " bytes, message length " + f.messageLength());
            }
            return ContextMessage.parse(kind, f.bytes());
        }
        if (f.messageLength() > MAX_MESSAGE) {
            throw new WireFormatException(WireHeader.SIZE + 8, "context message of " + f.messageLength()
                    + " bytes, more than " + MAX_MESSAGE);
        }
        Key key = new Key(scope, kind, f.messageId());
        Pending p = pending.get(key);
        if (p == null) {
            while (!order.isEmpty() && (order.size() >= MAX_PENDING || pendingBytes + f.messageLength() > MAX_PENDING_BYTES)) {
                forget(order.get(0));
                dropped++;
            }
            p = new Pending((int) f.messageLength(), f.count());
            pending.put(key, p);
            order.add(key);
            pendingBytes += p.bytes.length;
        } else if (p.bytes.length != f.messageLength() || p.have.length != f.count()) {
            forget(key);
            throw new WireFormatException(WireHeader.SIZE + 4, "fragment " + f.index() + " of message "
                    + f.messageId() + " contradicts its earlier fragments (length/count)");
        }
        if (f.index() < f.count() - 1) {
            if (p.fragmentSize < 0) {
                p.fragmentSize = f.bytes().length;
            } else if (p.fragmentSize != f.bytes().length) {
                forget(key);
                throw new WireFormatException(WireHeader.SIZE + 12, "fragments of message " + f.messageId()
                        + " differ in size");
            }
        }
        int size = f.index() < f.count() - 1 ? f.bytes().length
                : (p.fragmentSize > 0 ? p.fragmentSize : (p.bytes.length - f.bytes().length) / Math.max(1, f.count() - 1));
        long at = (long) f.index() * size;
        if (at + f.bytes().length > p.bytes.length || size <= 0) {
            forget(key);
            throw new WireFormatException(WireHeader.SIZE + 12, "fragment " + f.index() + " of message "
                    + f.messageId() + " runs past the message length " + p.bytes.length);
        }
        if (!p.have[f.index()]) {
            System.arraycopy(f.bytes(), 0, p.bytes, (int) at, f.bytes().length);
            p.have[f.index()] = true;
            p.missing--;
        }
        if (p.missing == 0) {
            forget(key);
            return ContextMessage.parse(kind, p.bytes);
        }
        return null;
    }

    private void forget(Key key) {
        Pending p = pending.remove(key);
        if (p != null) {
            pendingBytes -= p.bytes.length;
        }
        order.remove(key);
    }

    /** Incomplete messages held now. */
    public int pending() {
        return pending.size();
    }

    /** Bytes of the incomplete messages held now. */
    public long pendingBytes() {
        return pendingBytes;
    }

    /** Incomplete messages dropped because {@link #MAX_PENDING} or {@link #MAX_PENDING_BYTES} was reached. */
    public long dropped() {
        return dropped;
    }

    /** Forgets every incomplete message of a scope (its capture restarted). */
    public void reset(Object scope) {
        for (Iterator<Key> i = order.iterator(); i.hasNext(); ) {
            Key k = i.next();
            if (k.scope().equals(scope)) {
                Pending p = pending.remove(k);
                if (p != null) {
                    pendingBytes -= p.bytes.length;
                }
                i.remove();
            }
        }
    }
}
