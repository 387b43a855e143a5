package org.tracewire.app.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.PipedInputStream;
import java.io.PipedOutputStream;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.tracewire.protocol.BackendClient;
import org.tracewire.app.util.DirectTaskExecutor;
import org.tracewire.backend.BackendServer;
import org.tracewire.testing.Prerequisites;
import org.tracewire.tracefs.Tracefs;

/** The builder's kernel form is checked by the kernel through the backend, errors at their position. */
class KernelCheckViewModelTest {
    private FilterBuilderViewModel vm;
    private final List<String> asked = new ArrayList<>();
    private final List<CompletableFuture<FilterBuilderViewModel.Verdict>> pending = new ArrayList<>();

    @BeforeEach
    void setUp() {
        vm = new FilterBuilderViewModel(() -> java.nio.ByteOrder.LITTLE_ENDIAN);
        vm.eventProperty().set(Tracefs.open(Prerequisites.snapshot()).format("sched", "sched_switch"));
    }

    private void fakeBackend() {
        vm.setKernelCheck((ev, f) -> {
            asked.add(ev + " " + f);
            CompletableFuture<FilterBuilderViewModel.Verdict> c = new CompletableFuture<>();
            pending.add(c);
            return c;
        }, new DirectTaskExecutor());
    }

    @Test
    void withoutABackendNothingIsChecked() {
        vm.rootProperty().get().addCondition("prev_pid").valueProperty().set("1");
        assertEquals(FilterBuilderViewModel.NOT_CHECKED, vm.kernelVerdictProperty().get());
        assertEquals(-1, vm.kernelErrorPositionProperty().get());
    }

    @Test
    void acceptedAndRejectedWithThePosition() {
        fakeBackend();
        ConditionViewModel c = vm.rootProperty().get().addCondition("prev_pid");
        c.valueProperty().set("1");
        assertEquals("sched:sched_switch prev_pid == 1", asked.get(asked.size() - 1));
        assertEquals("checking with the kernel…", vm.kernelVerdictProperty().get());
        pending.get(pending.size() - 1).complete(new FilterBuilderViewModel.Verdict(true, null, -1));
        assertEquals("accepted by the kernel", vm.kernelVerdictProperty().get());

        c.valueProperty().set("2");
        pending.get(pending.size() - 1).complete(new FilterBuilderViewModel.Verdict(false, "Field not found", 9));
        assertTrue(vm.kernelVerdictProperty().get().startsWith("rejected by the kernel: Field not found"));
        assertEquals(9, vm.kernelErrorPositionProperty().get());
    }

    @Test
    void anAnswerAboutAnOlderFilterIsIgnored() {
        fakeBackend();
        ConditionViewModel c = vm.rootProperty().get().addCondition("prev_pid");
        c.valueProperty().set("1");
        CompletableFuture<FilterBuilderViewModel.Verdict> old = pending.get(pending.size() - 1);
        c.valueProperty().set("3");
        CompletableFuture<FilterBuilderViewModel.Verdict> current = pending.get(pending.size() - 1);
        current.complete(new FilterBuilderViewModel.Verdict(true, null, -1));
        old.complete(new FilterBuilderViewModel.Verdict(false, "stale", 0));
        assertEquals("accepted by the kernel", vm.kernelVerdictProperty().get());
        assertEquals(-1, vm.kernelErrorPositionProperty().get());
    }

    /** Against the live kernel through the real backend server: the kernel accepts what the builder compiles. */
    @Test
    @Tag("live")
    @Tag("concurrent")
    void theLiveKernelAcceptsTheBuildersFilterAndRefusesABrokenOne() throws Exception {
        Tracefs top = Prerequisites.requireTracefs();
        PipedOutputStream toServer = new PipedOutputStream();
        PipedInputStream serverIn = new PipedInputStream(toServer, 1 << 16);
        PipedInputStream fromServer = new PipedInputStream(1 << 20);
        PipedOutputStream serverOut = new PipedOutputStream(fromServer);
        BackendServer server = new BackendServer(top, serverOut, (i, p, t, s) -> null);
        Thread th = new Thread(() -> {
            try {
                server.serve(serverIn);
                serverOut.close();
            } catch (java.io.IOException ignored) {
                // the client closed
            }
        });
        th.start();
        BackendClient client = new BackendClient(fromServer, toServer, null);
        vm.setKernelCheck((ev, f) -> client.validateFilter(ev, f)
                .thenApply(r -> new FilterBuilderViewModel.Verdict(r.accepted(), r.message(), r.position())),
                new DirectTaskExecutor());
        ConditionViewModel c = vm.rootProperty().get().addCondition("prev_pid");
        c.valueProperty().set("1");
        long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(15);
        while (vm.kernelVerdictProperty().get().startsWith("checking") && System.nanoTime() < deadline) {
            Thread.sleep(20);
        }
        assertEquals("accepted by the kernel", vm.kernelVerdictProperty().get());
        var broken = client.validateFilter("sched:sched_switch", "prev_pidd == 1").get(15, TimeUnit.SECONDS);
        assertEquals(false, broken.accepted());
        assertEquals("Field not found", broken.message());
        assertEquals(10, broken.position());
        toServer.close();
        th.join(10_000);
    }
}
