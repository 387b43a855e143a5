package org.tracewire.wire;

import java.nio.ByteOrder;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.format.EventFormat;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.KernelVariables;

/**
 * Builds the context messages of {@code docs/wire-format.md} §4.1–4.5 from their parts, so every
 * writer of tracewire files (the capture backend, {@code import}, tests) says the same thing the
 * same way.
 */
public final class ContextMessages {
    private ContextMessages() {
    }

    /**
     * What a CAPTURE message says (§4.1). Null strings are left out.
     *
     * @param captureId     unique per capture
     * @param kernelRelease {@code uname -r}
     * @param bootId        {@code /proc/sys/kernel/random/boot_id}
     * @param host          host name
     * @param clock         trace clock name
     * @param clockOffsetNs epoch ns = trace-clock ns + this
     * @param clockErrorNs  error bound of the mapping, ns
     * @param layout        the kernel's byte order and long size
     * @param headerPage    {@code events/header_page} text
     * @param headerEvent   {@code events/header_event} text
     * @param constants     name → value for item 12 ({@code HZ}, variables, {@code sizeof(TYPE)})
     * @param version       tracewire's version
     * @param events        the selected events ({@code system:event})
     */
    public record Capture(String captureId, String kernelRelease, String bootId, String host, String clock,
                          long clockOffsetNs, long clockErrorNs, KernelLayout layout, String headerPage,
                          String headerEvent, Map<String, Long> constants, String version, List<String> events) {
    }

    /**
     * The constants of a CAPTURE message (§4.1 item 12) from what is known of the kernel: {@code HZ}
     * (left out when 0, unknown), each kernel variable by name, each type size as
     * {@code sizeof(TYPE)}; in that order.
     *
     * @param hz        {@code CONFIG_HZ}, 0 when unknown
     * @param variables the calibrated kernel variables and type sizes
     */
    public static Map<String, Long> constants(int hz, KernelVariables variables) {
        Map<String, Long> r = new LinkedHashMap<>();
        if (hz > 0) {
            r.put("HZ", (long) hz);
        }
        variables.values().forEach(r::put);
        variables.typeSizes().forEach((t, n) -> r.put("sizeof(" + t + ")", (long) n));
        return r;
    }

    /** The CAPTURE message. */
    public static ContextMessage capture(Capture c) {
        StringBuilder k = new StringBuilder();
        c.constants().forEach((name, v) -> k.append(name).append('=')
                .append(name.equals("HZ") || name.startsWith("sizeof(") ? Long.toString(v) : "0x" + Long.toHexString(v))
                .append('\n'));
        return ContextMessage.builder(FrameKind.CAPTURE)
                .text(ContextMessage.CAPTURE_ID, c.captureId())
                .text(ContextMessage.CAPTURE_KERNEL_RELEASE, c.kernelRelease())
                .text(ContextMessage.CAPTURE_BOOT_ID, c.bootId())
                .text(ContextMessage.CAPTURE_HOST, c.host())
                .text(ContextMessage.CAPTURE_CLOCK, c.clock())
                .u64(ContextMessage.CAPTURE_CLOCK_OFFSET, c.clockOffsetNs())
                .u64(ContextMessage.CAPTURE_CLOCK_ERROR, c.clockErrorNs())
                .u8(ContextMessage.CAPTURE_LONG_SIZE, c.layout().longSize())
                .u8(ContextMessage.CAPTURE_BYTE_ORDER, c.layout().byteOrder() == ByteOrder.LITTLE_ENDIAN ? 1 : 0)
                .text(ContextMessage.CAPTURE_HEADER_PAGE, c.headerPage())
                .text(ContextMessage.CAPTURE_HEADER_EVENT, c.headerEvent())
                .text(ContextMessage.CAPTURE_CONSTANTS, k.toString())
                .text(ContextMessage.CAPTURE_VERSION, c.version())
                .text(ContextMessage.CAPTURE_EVENTS, c.events() == null ? null : String.join("\n", c.events()))
                .build();
    }

    /**
     * The FORMAT message of one event (§4.2).
     *
     * @param format      the parsed format (id and name)
     * @param text        the {@code format} file text as tracefs gave it
     * @param description the dissector's description tree (§4.6), or null
     * @param enums       BTF enum constants its print fmt needs (name → value), possibly empty
     */
    public static ContextMessage format(EventFormat format, String text, byte[] description, Map<String, Long> enums) {
        ContextMessage.Builder b = ContextMessage.builder(FrameKind.FORMAT)
                .u16(ContextMessage.FORMAT_ID, format.id())
                .text(ContextMessage.FORMAT_NAME, format.fullName())
                .text(ContextMessage.FORMAT_TEXT, text);
        if (description != null) {
            b.bytes(ContextMessage.FORMAT_DESCRIPTION, description);
        }
        if (enums != null && !enums.isEmpty()) {
            StringBuilder sb = new StringBuilder();
            enums.forEach((n, v) -> sb.append(n).append('=').append(v).append('\n'));
            b.text(ContextMessage.FORMAT_ENUMS, sb.toString());
        }
        return b.build();
    }

    /** A LOST message (§4.5): {@code count} events lost on the frames' cpu. */
    public static ContextMessage lost(long count) {
        return ContextMessage.builder(FrameKind.LOST).u64(ContextMessage.LOST_EVENTS, count).build();
    }
}
