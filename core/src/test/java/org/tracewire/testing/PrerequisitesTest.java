package org.tracewire.testing;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import org.opentest4j.AssertionFailedError;
import org.opentest4j.TestAbortedException;

/** The skip-or-fail logic of {@link Prerequisites}, with an injected environment. */
class PrerequisitesTest {

    @Test
    void ciIsRecognised() {
        assertTrue(Prerequisites.of(Map.of("CI", "true"), () -> true).isCi());
        assertTrue(Prerequisites.of(Map.of("CI", "TRUE"), () -> true).isCi());
        assertTrue(Prerequisites.of(Map.of("CI", "1"), () -> true).isCi());
        assertFalse(Prerequisites.of(Map.of("CI", "false"), () -> true).isCi());
        assertFalse(Prerequisites.of(Map.of(), () -> true).isCi());
    }

    @Test
    void missingRootSkipsOffCi() {
        TestAbortedException e = assertThrows(TestAbortedException.class,
                () -> Prerequisites.of(Map.of(), () -> false).root());
        assertTrue(e.getMessage().contains("needs root"), e.getMessage());
    }

    @Test
    void missingRootFailsOnCi() {
        AssertionFailedError e = assertThrows(AssertionFailedError.class,
                () -> Prerequisites.of(Map.of("CI", "true"), () -> false).root());
        assertTrue(e.getMessage().contains("needs root"), e.getMessage());
        assertTrue(e.getMessage().contains("CI=true"), e.getMessage());
    }

    @Test
    void rootPresentPasses() {
        Prerequisites.of(Map.of("CI", "true"), () -> true).root();
    }

    @Test
    void missingTracefsAlsoNeedsRootFirst() {
        TestAbortedException e = assertThrows(TestAbortedException.class,
                () -> Prerequisites.of(Map.of(), () -> false).tracefs());
        assertTrue(e.getMessage().startsWith("needs root"), e.getMessage());
    }

    @Test
    void toolIsFoundOnInjectedPath(@TempDir Path dir) throws Exception {
        Path tool = dir.resolve("fake-tool");
        Files.writeString(tool, "#!/bin/sh\n");
        assertTrue(tool.toFile().setExecutable(true));
        Map<String, String> env = Map.of("PATH", "/nonexistent:" + dir, "CI", "true");
        assertEquals(tool, Prerequisites.of(env, () -> true).tool("fake-tool"));
    }

    @Test
    void missingToolSkipsOffCiAndFailsOnCi(@TempDir Path dir) {
        TestAbortedException skip = assertThrows(TestAbortedException.class,
                () -> Prerequisites.of(Map.of("PATH", dir.toString()), () -> true).tool("tshark"));
        assertTrue(skip.getMessage().startsWith("needs tshark"), skip.getMessage());
        AssertionFailedError fail = assertThrows(AssertionFailedError.class,
                () -> Prerequisites.of(Map.of("PATH", dir.toString(), "CI", "true"), () -> true).tool("tshark"));
        assertTrue(fail.getMessage().startsWith("needs tshark"), fail.getMessage());
    }

    @Test
    void snapshotIsFound() {
        Path snap = Prerequisites.snapshot();
        assertTrue(Files.isRegularFile(snap.resolve("events/sched/sched_switch/format")), snap.toString());
        assertTrue(snap.endsWith(Prerequisites.SNAPSHOT_DIR), snap.toString());
    }
}
