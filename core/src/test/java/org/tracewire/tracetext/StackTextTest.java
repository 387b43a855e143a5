package org.tracewire.tracetext;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.KernelLayout;
import org.tracewire.printfmt.PrintContext;
import org.tracewire.printfmt.PrintkFormats;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.SymbolResolver;
import org.tracewire.testing.Prerequisites;
import org.tracewire.wire.ContextMessage;
import org.tracewire.wire.FrameKind;
import org.tracewire.wire.WireContext;
import org.tracewire.wire.WireHeader;
import org.tracewire.tracefs.Tracefs;

/**
 * {@link StackText} on records built with the snapshot's {@code ftrace:kernel_stack} and
 * {@code user_stack} formats, against the text {@code trace_stack_print()} and
 * {@code trace_user_stack_print()} write (the live comparison is {@code StackOracleLiveTest}).
 */
class StackTextTest {
    static final KernelLayout LAYOUT = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);

    @Test
    void kernelAndUserStacksPrintAsTheKernelDoes() {
        Tracefs snap = Tracefs.open(Prerequisites.snapshot());
        EventFormat ks = snap.format("ftrace", "kernel_stack");
        EventFormat us = snap.format("ftrace", "user_stack");
        assertEquals(StackText.Kind.KERNEL, StackText.kind(ks));
        assertEquals(StackText.Kind.USER, StackText.kind(us));
        assertNull(StackText.kind(snap.format("ftrace", "print")));
        assertNull(StackText.kind(snap.format("sched", "sched_switch")));

        // 10 addresses, past the format's caller[8]: known, module (printed without [mod]), unknown, 0
        long[] calls = {0xffffffff81000010L, 0xffffffffc0001000L, 0xffffffff90000000L, 0, 0xffffffff81000020L,
                0xffffffff81000010L, 0xffffffff81000010L, 0xffffffff81000010L, 0xffffffff81000010L, 0xffffffff81000ff0L};
        ByteBuffer k = ByteBuffer.allocate(16 + 8 * calls.length).order(ByteOrder.LITTLE_ENDIAN);
        k.putShort(0, (short) ks.id()).putInt(4, 42).putInt(8, calls.length);
        for (int i = 0; i < calls.length; i++) {
            k.putLong(16 + 8 * i, calls[i]);
        }
        Map<Long, SymbolResolver.Symbol> syms = Map.of(
                0xffffffff81000000L, new SymbolResolver.Symbol("do_sys_openat2", 0xffffffff81000000L, 0x1000, null),
                0xffffffffc0001000L, new SymbolResolver.Symbol("e1000_xmit", 0xffffffffc0001000L, 0x100, "e1000"));
        SymbolResolver r = a -> syms.get(a & ~0xfffL);
        EventRecord kr = new EventRecord(ks, LAYOUT, 0, 0, k);
        assertArrayEquals(calls, StackText.addresses(kr));
        StringBuilder sb = new StringBuilder();
        StackText.append(sb, kr, r);
        assertEquals("<stack trace>\n => do_sys_openat2\n => e1000_xmit\n => 0xffffffff90000000\n => 0\n"
                + " => do_sys_openat2\n => do_sys_openat2\n => do_sys_openat2\n => do_sys_openat2\n"
                + " => do_sys_openat2\n => do_sys_openat2", sb.toString());
        k.putLong(16 + 8 * 2, -1L); // ULONG_MAX ends it (older kernels' terminator)
        assertEquals(2, StackText.addresses(new EventRecord(ks, LAYOUT, 0, 0, k)).length);

        ByteBuffer u = ByteBuffer.allocate(us.fixedSize()).order(ByteOrder.LITTLE_ENDIAN);
        u.putShort(0, (short) us.id()).putInt(4, 42).putInt(8, 42).putLong(16, 0x7f4dfa71ab70L).putLong(24, 0x55aa0010L);
        EventRecord ur = new EventRecord(us, LAYOUT, 0, 0, u);
        KernelTextRenderer renderer = new KernelTextRenderer(null, LAYOUT, new PrintContext(r, PrintkFormats.empty(), 250));
        assertEquals("<user stack trace>\n =>  <00007f4dfa71ab70>\n =>  <0000000055aa0010>", renderer.body(ur),
                "up to the first 0, %016lx in angle brackets");
        assertEquals("<stack trace>\n => do_sys_openat2\n => e1000_xmit", renderer.body(new EventRecord(ks, LAYOUT, 0, 0, k)));

        // the user symbols a capture resolved, through the wire (SYMBOLS items 4 and 5) and WireContext
        byte[] id = java.util.HexFormat.of().parseHex("be6397ddffc3e384c505d7deab3bed190c884df9");
        ContextMessage m = ContextMessage.builder(FrameKind.SYMBOLS).userObject(42, id, "/usr/bin/bash")
                .userSymbol(42, 0x7f4dfa71ab70L, 0x7f4dfa71ab00L, 0x100, "readline [/usr/bin/bash]")
                .userUnknown(42, 0x55aa0010L).userSymbol(43, 0x55aa0010L, 0x55aa0000L, 0x20, "main [/usr/bin/x]").build();
        WireContext wire = new WireContext();
        wire.apply(ContextMessage.parse(m.kind(), m.toBytes()).message(), WireHeader.NO_CPU);
        renderer.userSymbols(wire.userSymbols());
        assertEquals("<user stack trace>\n =>  <00007f4dfa71ab70> readline+0x70 [/usr/bin/bash]\n =>  <0000000055aa0010>",
                renderer.body(ur), "a resolved frame named after the kernel's address; pid 43's symbol is not pid 42's"
                        + "; the build id (item 6) is not in the kernel's text");
        assertEquals("be6397ddffc3e384c505d7deab3bed190c884df9", wire.userSymbols().buildId(42, "/usr/bin/bash"));
        assertNull(wire.userSymbols().buildId(43, "/usr/bin/bash"), "scoped to its process");
        assertNull(wire.userSymbols().buildId(43, "/usr/bin/x"), "a file whose build id was not sent");

        // a message of a file written before item 6 (none) reads as before; a bad item 6 is skipped
        ContextMessage old = ContextMessage.builder(FrameKind.SYMBOLS)
                .userSymbol(7, 0x7f4dfa71ab70L, 0x7f4dfa71ab00L, 0x100, "readline [/usr/bin/bash]")
                .bytes(ContextMessage.USER_OBJECT, new byte[] {0, 0, 0, 7, 40, 1, 2}).build();
        WireContext before = new WireContext();
        before.apply(ContextMessage.parse(old.kind(), old.toBytes()).message(), WireHeader.NO_CPU);
        assertEquals("readline", before.userSymbols().lookup(7, 0x7f4dfa71ab70L).name());
        assertNull(before.userSymbols().buildId(7, "/usr/bin/bash"));
        assertThrows(IllegalArgumentException.class, () -> ContextMessage.builder(FrameKind.SYMBOLS)
                .userObject(1, new byte[0], "/x"), "an empty build id");
    }
}
