package org.tracewire.posix;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.BitSet;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.tracewire.testing.ProcThreads;

class CpuAffinityTest {
    /** What {@link CpuAffinity#get} returns is what /proc says, for the calling thread. */
    @Test
    void getAgreesWithProc() throws Exception {
        int tid = CpuAffinity.currentThreadId();
        assertTrue(tid > 0);
        assertEquals(ProcThreads.cpusAllowed(tid), CpuAffinity.get(0));
        assertEquals(ProcThreads.cpusAllowed(tid), CpuAffinity.get(tid));
    }

    /**
     * A thread pinned to one CPU by another thread (by its id) shows exactly that CPU in /proc, and
     * is given its whole set back the same way.
     */
    @Test
    void setPinsAnotherThreadAndGivesItsCpusBack() throws Exception {
        BitSet all = CpuAffinity.get(0);
        int cpu = all.length() - 1;
        AtomicReference<Integer> tid = new AtomicReference<>();
        Object gate = new Object();
        Thread t = new Thread(() -> {
            tid.set(CpuAffinity.currentThreadId());
            synchronized (gate) {
                try {
                    gate.wait(10_000);
                } catch (InterruptedException ignored) {
                    // end
                }
            }
        }, "cpuaff-probe");
        t.start();
        try {
            while (tid.get() == null) {
                Thread.sleep(1);
            }
            // the id is that thread's own (the JVM names the kernel's task after the Java thread)
            assertEquals(tid.get(), ProcThreads.idNamed("cpuaff-probe"));
            assertTrue(tid.get() != CpuAffinity.currentThreadId());
            BitSet one = new BitSet();
            one.set(cpu);
            CpuAffinity.set(tid.get(), one);
            assertEquals(one, ProcThreads.cpusAllowed(tid.get()));
            assertEquals(one, CpuAffinity.get(tid.get()));
            CpuAffinity.set(tid.get(), all);
            assertEquals(all, ProcThreads.cpusAllowed(tid.get()));
        } finally {
            synchronized (gate) {
                gate.notifyAll();
            }
            t.join();
        }
    }

    /** An empty set is refused before the kernel; a thread that does not exist is the kernel's ESRCH (3). */
    @Test
    void refusals() {
        assertThrows(IllegalArgumentException.class, () -> CpuAffinity.set(0, new BitSet()));
        BitSet far = new BitSet();
        far.set(CpuAffinity.MAX_CPUS);
        assertThrows(IllegalArgumentException.class, () -> CpuAffinity.set(0, far));
        IllegalStateException e = assertThrows(IllegalStateException.class,
                () -> CpuAffinity.get(Integer.MAX_VALUE));
        assertTrue(e.getMessage().contains("errno 3"), e.getMessage());
    }
}
