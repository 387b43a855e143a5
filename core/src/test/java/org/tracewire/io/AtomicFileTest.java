package org.tracewire.io;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFileTest {
    @TempDir
    Path dir;

    private List<String> leftovers() throws IOException {
        try (var s = Files.list(dir.resolve("a"))) {
            return s.map(p -> p.getFileName().toString()).filter(n -> n.endsWith(".tmp")).toList();
        }
    }

    @Test
    void createsParentsAndWritesNewFileReadableByAll() throws IOException {
        Path f = dir.resolve("a/b.json");
        AtomicFile.write(f, "{\"x\":1}");
        assertEquals("{\"x\":1}", Files.readString(f));
        assertEquals("rw-r--r--", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertEquals(List.of(), leftovers());
    }

    @Test
    void replacesContentAndKeepsPermissions() throws IOException {
        Path f = dir.resolve("a/secret");
        Files.createDirectories(f.getParent());
        Files.write(f, new byte[] {1, 2, 3});
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        byte[] big = new byte[3 * 1024 * 1024];
        big[big.length - 1] = 42;
        AtomicFile.write(f, big);
        assertArrayEquals(big, Files.readAllBytes(f));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        assertEquals(List.of(), leftovers());
    }

    @Test
    void failedWriteLeavesTargetAndNoTemporary() throws IOException {
        Path f = dir.resolve("a/target");
        Files.createDirectories(f);           // a non-empty directory cannot be replaced by a file
        Files.writeString(f.resolve("inside"), "keep");
        assertThrows(IOException.class, () -> AtomicFile.write(f, "new"));
        assertEquals("keep", Files.readString(f.resolve("inside")));
        assertEquals(List.of(), leftovers());
    }

    @Test
    void givenPermissionsAndContentWrittenOutOfOrder() throws IOException {
        Path f = dir.resolve("a/run.sh");
        Files.createDirectories(f.getParent());
        Files.writeString(f, "old");
        Files.setPosixFilePermissions(f, PosixFilePermissions.fromString("rw-------"));
        AtomicFile.write(f, "#!/bin/sh\n".getBytes(StandardCharsets.UTF_8),
                PosixFilePermissions.fromString("rwxr-xr-x"));
        assertEquals("#!/bin/sh\n", Files.readString(f));
        assertEquals("rwxr-xr-x", PosixFilePermissions.toString(Files.getPosixFilePermissions(f)));
        Path g = dir.resolve("a/sparse.bin");
        AtomicFile.write(g, null, ch -> {
            ch.position(8);
            ch.write(ByteBuffer.wrap(new byte[] {9}));
            ch.position(0);
            ch.write(ByteBuffer.wrap(new byte[] {1}));
        });
        assertArrayEquals(new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 9}, Files.readAllBytes(g));
        assertThrows(IOException.class, () -> AtomicFile.write(g, null, ch -> {
            throw new IOException("writer failed");
        }));
        assertArrayEquals(new byte[] {1, 0, 0, 0, 0, 0, 0, 0, 9}, Files.readAllBytes(g), "left as it was");
        assertEquals(List.of(), leftovers());
    }
}
