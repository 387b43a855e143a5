package org.tracewire.filter;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.concurrent.TimeUnit;
import org.tracewire.format.EventFormat;
import org.tracewire.format.Field;

/** Running tshark/tcpdump from tests, and the throwaway Lua that registers tracewire's field names. */
final class Tools {
    private Tools() {
    }

    /** Exit code and merged output of a process. */
    record Run(int code, String output) {
    }

    static Run run(List<String> command) {
        try {
            Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
            String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                p.destroyForcibly();
                throw new IllegalStateException("timeout: " + command);
            }
            return new Run(p.exitValue(), out);
        } catch (IOException e) {
            throw new IllegalStateException(e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }

    /**
     * A Lua script registering a protocol {@code tracewire} with the header fields and every own
     * field of the events, named as {@link DisplayFilterCompiler} names them, typed from the format
     * (so that tshark checks literals against the field's type). Test-only: the real dissector is
     * generated elsewhere.
     */
    static String lua(List<EventFormat> formats) {
        StringBuilder sb = new StringBuilder("local p = Proto(\"tracewire\", \"tracewire (filter test)\")\nlocal f = {}\n");
        sb.append("f[#f+1] = ProtoField.string(\"").append(DisplayFilterCompiler.EVENT).append("\", \"event\")\n");
        sb.append("f[#f+1] = ProtoField.int32(\"").append(DisplayFilterCompiler.PID).append("\", \"pid\")\n");
        sb.append("f[#f+1] = ProtoField.uint8(\"").append(DisplayFilterCompiler.FLAGS).append("\", \"flags\", base.HEX)\n");
        sb.append("f[#f+1] = ProtoField.uint8(\"").append(DisplayFilterCompiler.PREEMPT_COUNT).append("\", \"preempt\")\n");
        sb.append("f[#f+1] = ProtoField.uint16(\"").append(DisplayFilterCompiler.CPU).append("\", \"cpu\")\n");
        for (EventFormat e : formats) {
            for (Field x : e.fields()) {
                FilterField ff = FilterField.resolve(e, x.name());
                String name = ("tracewire." + e.system() + "." + e.name() + "." + x.name()).toLowerCase(Locale.ROOT);
                String ctor;
                if (ff.type() == FilterField.Type.NUMBER) {
                    ctor = (ff.signed() ? "int" : "uint") + (ff.size() * 8);
                } else if (ff.type() == FilterField.Type.STRING && !ff.isStringPointer()) {
                    ctor = "string";
                } else if (ff.isStringPointer()) {
                    ctor = "uint64";
                } else {
                    ctor = "bytes";
                }
                sb.append("f[#f+1] = ProtoField.").append(ctor).append("(\"").append(name).append("\", \"")
                        .append(x.name()).append("\")\n");
            }
        }
        sb.append("p.fields = f\n");
        return sb.toString();
    }

    /** A pcap file with one Ethernet frame (for tshark to have something to read). */
    static Path onePacketPcap(Path dir) throws IOException {
        Path file = dir.resolve("one.pcap");
        Pcap.write(file, List.of(new byte[60]));
        return file;
    }
}
