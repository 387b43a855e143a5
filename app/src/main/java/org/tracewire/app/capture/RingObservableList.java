package org.tracewire.app.capture;

import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.List;
import javafx.collections.ObservableListBase;

/**
 * A read-only observable list of at most {@code capacity} elements kept in a circular array:
 * appending past the capacity drops the oldest, and one append fires one change (a removal at
 * the head and an addition at the tail) in time proportional to the batch, not the list. The
 * standard {@code remove(0, n)} of an observable array list shifts the whole list once per
 * element, which stalls the JavaFX thread at a live capture's rates (BENCHMARKS.md).
 *
 * @param <E> the element type
 */
public final class RingObservableList<E> extends ObservableListBase<E> {
    private final Object[] ring;
    private int head;
    private int size;

    /** @param capacity the most elements kept */
    public RingObservableList(int capacity) {
        if (capacity <= 0) {
            throw new IllegalArgumentException("capacity " + capacity);
        }
        ring = new Object[capacity];
    }

    /** The most elements kept. */
    public int capacity() {
        return ring.length;
    }

    @Override
    @SuppressWarnings("unchecked")
    public E get(int index) {
        if (index < 0 || index >= size) {
            throw new IndexOutOfBoundsException(index + " of " + size);
        }
        return (E) ring[(head + index) % ring.length];
    }

    @Override
    public int size() {
        return size;
    }

    /**
     * Appends a batch, dropping the oldest elements beyond the capacity; fires one change.
     *
     * @param batch the new elements, oldest first
     */
    public void append(Collection<? extends E> batch) {
        if (batch.isEmpty()) {
            return;
        }
        List<? extends E> items = batch instanceof List<? extends E> l ? l : new ArrayList<>(batch);
        if (items.size() > ring.length) {
            items = items.subList(items.size() - ring.length, items.size());
        }
        int n = items.size();
        int drop = Math.max(0, size + n - ring.length);
        List<E> removed = new ArrayList<>(drop);
        for (int i = 0; i < drop; i++) {
            removed.add(get(i));
        }
        beginChange();
        try {
            if (drop > 0) {
                head = (head + drop) % ring.length;
                size -= drop;
                nextRemove(0, removed);
            }
            int from = size;
            for (E e : items) {
                ring[(head + size) % ring.length] = e;
                size++;
            }
            nextAdd(from, size);
        } finally {
            endChange();
        }
    }

    /** Removes everything; fires one change. */
    @Override
    public void clear() {
        if (size == 0) {
            return;
        }
        List<E> removed = new ArrayList<>(this);
        beginChange();
        try {
            Arrays.fill(ring, null);
            head = 0;
            size = 0;
            nextRemove(0, removed);
        } finally {
            endChange();
        }
    }
}
