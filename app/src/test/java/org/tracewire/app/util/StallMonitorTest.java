package org.tracewire.app.util;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayDeque;
import java.util.concurrent.atomic.AtomicLong;
import org.junit.jupiter.api.Test;

/**
 * The stall monitor on a held "UI thread" (a queue the test runs) and a clock the test moves: each
 * heartbeat's wait is measured from its post to its run, one heartbeat is out at a time, a waiting
 * one counts with its age.
 */
class StallMonitorTest {
    private final ArrayDeque<Runnable> ui = new ArrayDeque<>();
    private final AtomicLong clock = new AtomicLong(1_000_000_000L);
    private final StallMonitor monitor = new StallMonitor(ui::add, clock::get, 250);

    private void advanceMs(long ms) {
        clock.addAndGet(ms * 1_000_000L);
    }

    private void runUi() {
        while (!ui.isEmpty()) {
            ui.poll().run();
        }
    }

    @Test
    void theLongestWaitOfAHeartbeatIsTheLongestStall() {
        monitor.beat();
        advanceMs(10);
        runUi();
        monitor.beat();
        advanceMs(40);
        monitor.beat(); // the previous one still waits: not posted again
        assertEquals(1, ui.size(), "one heartbeat out at a time");
        advanceMs(260);
        runUi();
        monitor.beat();
        advanceMs(120);
        runUi();
        assertEquals(300, monitor.longestMs());
        assertEquals(1, monitor.stallsOver(), "waits over 250 ms");
        assertEquals(3, monitor.beats());
        assertEquals(1_000_000_000L + 310_000_000L, monitor.longestEndedAt());
        assertEquals("longest UI-thread stall 300 ms (the thread ran 0 ms of it); 1 waits over 250 ms of 3 heartbeats",
                monitor.summary());
    }

    @Test
    void aHeartbeatStillWaitingCountsWithItsAge() {
        monitor.beat();
        advanceMs(5);
        runUi();
        monitor.beat();
        advanceMs(900);
        assertEquals(900, monitor.longestMs(), "the UI thread is blocked now");
        assertEquals(0, monitor.stallsOver(), "counted once it ran");
        runUi();
        assertEquals(1, monitor.stallsOver());
    }

    @Test
    void theUiThreadsCpuTimeDuringTheLongestWaitTellsWorkFromStarvation() {
        AtomicLong cpu = new AtomicLong();
        StallMonitor m = new StallMonitor(ui::add, clock::get, cpu::get, 250);
        m.beat();
        advanceMs(400);
        cpu.addAndGet(30_000_000L); // the UI thread ran 30 ms of the 400: it waited for a CPU
        runUi();
        m.beat();
        advanceMs(100);
        cpu.addAndGet(100_000_000L);
        runUi();
        assertEquals(400, m.longestMs());
        assertEquals(30, m.longestCpuMs(), "the CPU time of the longest wait, not of the latest");
    }

    @Test
    void heartbeatsRunOnTheirOwnThreadUntilClosed() throws InterruptedException {
        java.util.concurrent.ExecutorService fx = java.util.concurrent.Executors.newSingleThreadExecutor();
        try (StallMonitor live = new StallMonitor(fx, System::nanoTime, 250).start(5)) {
            for (int i = 0; i < 400 && live.beats() < 3; i++) {
                Thread.sleep(10);
            }
            assertTrue(live.beats() >= 3, "heartbeats: " + live.beats());
        } finally {
            fx.shutdownNow();
        }
    }

    @Test
    void aLongWaitHasTheUiThreadsStackTold() throws Exception {
        java.util.List<String> told = new java.util.concurrent.CopyOnWriteArrayList<>();
        Object lock = new Object();
        Thread held = new Thread(() -> {
            synchronized (lock) {
                try {
                    lock.wait();
                } catch (InterruptedException e) {
                    // ends the thread
                }
            }
        }, "held-ui");
        held.start();
        monitor.sampleOver(held, 150, told::add);
        monitor.beat();
        advanceMs(100);
        monitor.beat(); // still waiting, not long enough
        assertEquals(0, told.size(), "a wait under 150 ms is not sampled");
        while (held.getState() != Thread.State.WAITING) {
            Thread.sleep(1);
        }
        advanceMs(100);
        monitor.beat();
        held.interrupt();
        held.join();
        assertEquals(1, told.size());
        assertTrue(told.get(0).startsWith("stall sample: waited 200 ms, UI thread WAITING at java.base@"),
                told.get(0));
        assertTrue(told.get(0).contains("java.lang.Object.wait(Native Method) < ") && told.get(0).contains("StallMonitorTest"), "the thread's own frames: " + told.get(0));
        runUi();
        monitor.beat();
        advanceMs(300);
        runUi();
        assertEquals(1, told.size(), "a wait is sampled only while a later beat finds it waiting");
    }

    @Test
    void aWindowCountsTheHeartbeatsOfItsPartAlone() {
        monitor.beat();
        advanceMs(400); // before the window: not in it
        runUi();
        StallMonitor.Window w = monitor.window();
        monitor.beat();
        advanceMs(260);
        runUi();
        monitor.beat();
        advanceMs(20);
        runUi();
        w.close();
        monitor.beat();
        advanceMs(500); // after it: not in it
        runUi();
        assertEquals(260, w.longestMs());
        assertEquals(1, w.stallsOver());
        assertEquals(2, w.beats());
        assertEquals(500, monitor.longestMs(), "the monitor counts every heartbeat");
        assertEquals(4, monitor.beats());
    }
}
