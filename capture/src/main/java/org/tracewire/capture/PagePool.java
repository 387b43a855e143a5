package org.tracewire.capture;

import java.io.IOException;
import java.util.ArrayDeque;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.tracewire.ringbuffer.SubBufferLayout;

/**
 * One CPU's pages: the drainer takes them to read sub-buffers into, the emitter gives them back
 * once it walked them. At most {@code capacity} pages exist. A deferring capture's pages come from
 * the read-ahead ({@link ReadAhead.Arena}, on the {@link Spool} when there is one), else they are
 * direct buffers. With a spool, a page emitted waits until its frames are in the file's whole blocks
 * before its slot is reused: a kill before that leaves its records for {@code recover}.
 */
final class PagePool {
    private final SubBufferLayout layout;
    private final int cpu;
    private final int capacity;
    private final boolean deferring;
    /** Free pages kept resident while tracing ({@link ReadAhead#KEEP_FREE}); the rest give their memory back. */
    private final int keepFree;
    /** The spool the read-ahead lives in, or null. */
    private final Spool spool;
    private final BlockingQueue<Page> free = new LinkedBlockingQueue<>();
    /** Drainer: pages made so far. */
    private int allocated;
    /** Where new pages come from while deferring, or null (made by the drainer, read by others). */
    private volatile ReadAhead.Arena arena;
    /** Bytes {@link #arena} has mapped (read by other threads). */
    private volatile long arenaBytes;
    /** Why this CPU's spool file could not be made (its pages then live in memory), or null. */
    private volatile String spoolFailure;
    /**
     * Emitter: pages emitted whose frames may not be in the file yet, oldest first, each with the
     * sink's event count after its last record ({@link Page#durableAt}); only with a spool.
     */
    private final ArrayDeque<Page> notDurable = new ArrayDeque<>();

    /**
     * @param layout    the sub-buffer layout (page size, byte order)
     * @param cpu       the CPU (names its spool file)
     * @param capacity  most pages
     * @param deferring true when the pages come from the read-ahead
     * @param keepFree  free pages kept resident while tracing
     * @param spool     the spool for the read-ahead, or null
     */
    PagePool(SubBufferLayout layout, int cpu, int capacity, boolean deferring, int keepFree, Spool spool) {
        this.layout = layout;
        this.cpu = cpu;
        this.capacity = capacity;
        this.deferring = deferring;
        this.keepFree = keepFree;
        this.spool = spool;
    }

    /** Drainer: a free page, or a new one while under the capacity; null when it must wait ({@link #await}). */
    Page take() {
        Page pg = free.poll();
        if (pg != null || allocated >= capacity) {
            return pg;
        }
        allocated++;
        if (!deferring) {
            return new Page(layout.subBufferSize(), layout.kernel().byteOrder());
        }
        if (arena == null) {
            arena = newArena();
        }
        Page fresh = new Page(arena.page(capacity - allocated + 1));
        arenaBytes = arena.mappedBytes();
        return fresh;
    }

    private ReadAhead.Arena newArena() {
        int fd = -1;
        if (spool != null) {
            try {
                fd = spool.file(cpu);
            } catch (IOException e) {
                spoolFailure = e.getMessage(); // this CPU's pages in memory, as without a spool
            }
        }
        return fd >= 0 ? new ReadAhead.Arena(layout.subBufferSize(), layout.kernel().byteOrder(), fd, spool::reserve)
                : new ReadAhead.Arena(layout.subBufferSize(), layout.kernel().byteOrder());
    }

    /** Drainer: waits up to {@code ms} for a page the emitter gives back; null when none came. */
    Page await(long ms) throws InterruptedException {
        return free.poll(ms, TimeUnit.MILLISECONDS);
    }

    /** Drainer: a page taken and not used. */
    void unused(Page pg) {
        free.add(pg);
    }

    /** True when the read-ahead is on the spool: a page waits for its frames to be durable. */
    boolean spooling() {
        return spool != null && deferring;
    }

    /**
     * Emitter: a page emitted goes back to the pool; while tracing, beyond {@link #keepFree} free
     * pages a read-ahead page also gives its memory back to the kernel.
     *
     * @param tracing false once the capture stops (its memory is unmapped at the end anyway)
     */
    void free(Page pg, boolean tracing) {
        if (deferring && tracing && free.size() >= keepFree) {
            ReadAhead.Arena.release(pg.buf);
        }
        free.add(pg);
    }

    /** Emitter, {@link #spooling()}: a page emitted, back to the pool once the sink counts {@code handed} durable. */
    void holdUntilDurable(Page pg, long handed) {
        pg.durableAt = handed;
        notDurable.add(pg);
    }

    /** Emitter: true when pages wait for their frames to be durable. */
    boolean holdsNotDurable() {
        return !notDurable.isEmpty();
    }

    /** Emitter: the pages whose frames are all among the {@code durable} first events go back to the pool. */
    void reclaim(long durable, boolean tracing) {
        Page pg;
        while ((pg = notDurable.peek()) != null && pg.durableAt <= durable) {
            free(notDurable.poll(), tracing);
        }
    }

    /** Bytes of read-ahead memory mapped so far (0 when not deferring). */
    long mappedBytes() {
        return arenaBytes;
    }

    /** Why the spool stopped taking pages (out of disk; those after went to memory), or null. */
    String spoolFailure() {
        ReadAhead.Arena a = arena;
        return spoolFailure != null || a == null ? spoolFailure : a.spoolFailure();
    }

    /** Unmaps the read-ahead: once every thread that touched its pages has ended. */
    void close() {
        if (arena != null) {
            arena.close();
        }
    }
}
