package org.tracewire.printfmt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Random;
import java.util.stream.Stream;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.Arguments;
import org.junit.jupiter.params.provider.MethodSource;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;
import org.tracewire.symbols.Kallsyms;
import org.tracewire.symbols.SymbolResolver;

/**
 * Rendering of records built field by field, in both byte orders and both long sizes. Expected
 * lines marked "kernel:" were read from {@code /sys/kernel/tracing/instances/tracewire-printfmt-*}
 * {@code /trace} on the 6.18 test machine (nohash-ptr) for a record with the same field values
 * (see {@code kernel-samples-6.18.jsonl}); the long-size-4 variants put the same values in 4-byte
 * longs, for which {@code lib/vsprintf.c} prints the same text.
 */
class EventPrinterTest {

    static final String COMMON = """
            \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
            \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
            \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
            \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

            """;

    static EventFormat inline(String name, String fields, String printFmt) {
        return TestRecords.format("test", "name: " + name + "\nID: 999\nformat:\n" + COMMON + fields + "\nprint fmt: "
                + printFmt + "\n");
    }

    static EventFormat snapshot(String event) throws IOException {
        Path p = SnapshotPrintFmtTest.snapshotEvents().resolve(event).resolve("format");
        return FormatParser.parse(event.substring(0, event.indexOf('/')), Files.readString(p, StandardCharsets.ISO_8859_1),
                p.toString());
    }

    static Stream<Arguments> layouts() {
        return Stream.of(Arguments.of(new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8)),
                Arguments.of(new KernelLayout(ByteOrder.BIG_ENDIAN, 8)));
    }

    static Stream<Arguments> allLayouts() {
        return Stream.of(Arguments.of(new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8)),
                Arguments.of(new KernelLayout(ByteOrder.BIG_ENDIAN, 8)),
                Arguments.of(new KernelLayout(ByteOrder.LITTLE_ENDIAN, 4)),
                Arguments.of(new KernelLayout(ByteOrder.BIG_ENDIAN, 4)));
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void schedSwitch(KernelLayout layout) throws IOException {
        EventFormat f = snapshot("sched/sched_switch");
        EventRecord r = new TestRecords(f, layout).integer("common_type", 372).integer("common_pid", 414)
                .string("prev_comm", "C1 CompilerThre").integer("prev_pid", 414).integer("prev_prio", 120)
                .integer("prev_state", 1).string("next_comm", "C2 CompilerThre").integer("next_pid", 413)
                .integer("next_prio", 120).record();
        EventPrinter p = EventPrinter.compile(f, layout);
        assertFalse(p.isFallback(), p.fallbackReason());
        assertNull(p.fallbackReason());
        // kernel:
        assertEquals("prev_comm=C1 CompilerThre prev_pid=414 prev_prio=120 prev_state=S ==> next_comm=C2 CompilerThre"
                + " next_pid=413 next_prio=120", p.render(r, PrintContext.empty()));
    }

    static EventFormat sysExit(int longSize) {
        return inline("sys_exit", "\tfield:long id;\toffset:8;\tsize:" + longSize + ";\tsigned:1;\n"
                + "\tfield:long ret;\toffset:" + (8 + longSize) + ";\tsize:" + longSize + ";\tsigned:1;\n",
                "\"NR %ld = %ld\", REC->id, REC->ret");
    }

    @ParameterizedTest
    @MethodSource("allLayouts")
    void sysExitInBothLongSizes(KernelLayout layout) {
        EventFormat f = sysExit(layout.longSize());
        EventPrinter p = EventPrinter.compile(f, layout);
        // kernel: "NR 202 = 1"
        assertEquals("NR 202 = 1", p.render(new TestRecords(f, layout).integer("id", 202).integer("ret", 1).record(),
                PrintContext.empty()));
        assertEquals("NR 202 = -11", p.render(new TestRecords(f, layout).integer("id", 202).integer("ret", -11).record(),
                PrintContext.empty()));
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void kmallocWithSymbolAndFlags(KernelLayout layout) throws IOException {
        EventFormat f = snapshot("kmem/kmalloc");
        EventRecord r = new TestRecords(f, layout).integer("call_site", 0xffffffff81798a54L)
                .integer("ptr", 0xffff888157b54740L).integer("bytes_req", 50).integer("bytes_alloc", 64)
                .integer("gfp_flags", 0xdc0).integer("node", -1).record();
        Kallsyms syms = new Kallsyms(List.of(
                new SymbolResolver.Symbol("ext4_htree_store_dirent", 0xffffffff81798a20L, 0, null),
                new SymbolResolver.Symbol("ext4_htree_free_dir_info", 0xffffffff81798b40L, 0, null)));
        EventPrinter p = EventPrinter.compile(f, layout);
        assertFalse(p.isFallback(), p.fallbackReason());
        // kernel:
        assertEquals("call_site=ext4_htree_store_dirent+0x34/0x120 ptr=ffff888157b54740 bytes_req=50 bytes_alloc=64"
                + " gfp_flags=GFP_KERNEL|__GFP_ZERO node=-1 accounted=false",
                p.render(r, new PrintContext(syms, null, 0)));
        // without a symbol table the kernel's text cannot be known: the record falls back
        RenderResult res = p.renderDetailed(r, PrintContext.empty());
        assertTrue(res.fallback());
        assertTrue(res.reason().contains("symbol table"), res.reason());
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void inetSockSetStateWithAddresses(KernelLayout layout) throws IOException {
        EventFormat f = snapshot("sock/inet_sock_set_state");
        byte[] v4 = {127, 0, 0, 1};
        byte[] v6 = new byte[16];
        v6[10] = (byte) 0xff;
        v6[11] = (byte) 0xff;
        System.arraycopy(v4, 0, v6, 12, 4);
        byte[] v6zero = v6.clone();
        v6zero[12] = 0;
        v6zero[15] = 0;
        EventRecord r = new TestRecords(f, layout).integer("skaddr", 0xffff88810599dc80L).integer("oldstate", 7)
                .integer("newstate", 10).integer("sport", 57575).integer("dport", 0).integer("family", 2)
                .integer("protocol", 6).bytes("saddr", v4).bytes("daddr", new byte[4]).bytes("saddr_v6", v6)
                .bytes("daddr_v6", v6zero).record();
        EventPrinter p = EventPrinter.compile(f, layout);
        assertFalse(p.isFallback(), p.fallbackReason());
        // kernel:
        assertEquals("family=AF_INET protocol=IPPROTO_TCP sport=57575 dport=0 saddr=127.0.0.1 daddr=0.0.0.0"
                + " saddrv6=::ffff:127.0.0.1 daddrv6=::ffff:0.0.0.0 oldstate=TCP_CLOSE newstate=TCP_LISTEN",
                p.render(r, PrintContext.empty()));
    }

    @ParameterizedTest
    @MethodSource("layouts")
    void irqHandlerEntryDynamicString(KernelLayout layout) throws IOException {
        EventFormat f = snapshot("irq/irq_handler_entry");
        EventRecord r = new TestRecords(f, layout).integer("irq", 36).dynamicString("name", "virtio1-req.0").record();
        // kernel:
        assertEquals("irq=36 name=virtio1-req.0", EventPrinter.compile(f, layout).render(r, PrintContext.empty()));
    }

    @ParameterizedTest
    @MethodSource("allLayouts")
    void rcuUtilizationStringFromPrintkFormats(KernelLayout layout) {
        EventFormat f = inline("rcu_utilization", "\tfield:const char * s;\toffset:8;\tsize:" + layout.longSize()
                + ";\tsigned:0;\n", "\"%s\", REC->s");
        long addr = layout.longSize() == 8 ? 0xffffffff8281a424L : 0xc281a424L;
        PrintkFormats pk = PrintkFormats.parse(String.format("0x%x : \"Start context switch\"\n", addr));
        EventPrinter p = EventPrinter.compile(f, layout);
        // kernel:
        assertEquals("Start context switch", p.render(new TestRecords(f, layout).integer("s", addr).record(),
                new PrintContext(null, pk, 0)));
        RenderResult unknown = p.renderDetailed(new TestRecords(f, layout).integer("s", addr + 1).record(),
                new PrintContext(null, pk, 0));
        assertTrue(unknown.fallback());
        assertEquals("s=0x" + Long.toHexString(addr + 1), unknown.text());
    }

    @ParameterizedTest
    @MethodSource("allLayouts")
    void pointerIsPxSizedByTheKernelsLong(KernelLayout layout) {
        // vsprintf.c pointer_string(): 2 * sizeof(void *) zero-padded lowercase hex digits
        EventFormat f = inline("p", "\tfield:void * ptr;\toffset:8;\tsize:" + layout.longSize() + ";\tsigned:0;\n",
                "\"ptr=%p\", REC->ptr");
        String text = EventPrinter.compile(f, layout).render(new TestRecords(f, layout).integer("ptr", 0x1a2bL).record(),
                PrintContext.empty());
        assertEquals(layout.longSize() == 8 ? "ptr=0000000000001a2b" : "ptr=00001a2b", text);
    }

    static final String INTS = "\tfield:unsigned long ul;\toffset:8;\tsize:8;\tsigned:0;\n"
            + "\tfield:int i;\toffset:16;\tsize:4;\tsigned:1;\n"
            + "\tfield:unsigned char arr[4];\toffset:20;\tsize:4;\tsigned:0;\n";

    static String render(String printFmt, long ul, int i) {
        KernelLayout l = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        EventFormat f = inline("ints", INTS, printFmt);
        EventPrinter p = EventPrinter.compile(f, l);
        assertFalse(p.isFallback(), p.fallbackReason());
        return p.render(new TestRecords(f, l).integer("ul", ul).integer("i", i)
                .bytes("arr", new byte[] {1, 2, (byte) 0xfe, 4}).record(), PrintContext.empty());
    }

    @Test
    void cSemanticsOfCastsAndConversions() {
        // C11 conversions, as gcc compiles the kernel's trace_raw_output_*() functions
        assertEquals("-1", render("\"%d\", REC->ul", 0xffffffffL, 0));                 // low 32 bits, signed
        assertEquals("4294967295", render("\"%lu\", REC->ul", 0xffffffffL, 0));
        assertEquals("52", render("\"%d\", (u8)REC->ul", 0x1234L, 0));                 // (u8) truncates to 0x34
        assertEquals("-1", render("\"%d\", (s8)REC->ul", 0xffL, 0));
        assertEquals("ffffffffffffffff", render("\"%lx\", (long)REC->i", 0, -1));      // sign extension
        assertEquals("ffffffff", render("\"%x\", REC->i", 0, -1));
        assertEquals("0", render("\"%d\", REC->i < REC->ul", 5, -1)); // -1 converts to ULONG_MAX
        assertEquals("254 2", render("\"%u %d\", REC->arr[2], REC->arr[1]", 0, 0));
        assertEquals("0x0 0 0x1f 037", render("\"%#x %#o %#x %#o\", REC->i, REC->i, REC->ul, REC->ul", 31, 0));
        assertEquals("[   -5] [-5   ] [-0005] [+5]", render("\"[%5d] [%-5d] [%05d] [%+d]\", REC->i, REC->i, REC->i, -REC->i",
                0, -5));
        assertEquals("[ ab] [ab ] [a]", render("\"[%3s] [%-3s] [%.*s]\", \"ab\", \"ab\", REC->i, \"ab\"", 0, 1));
        assertEquals("7 1 0 -8 3", render("\"%d %d %d %d %d\", REC->i, !0, !REC->i, ~REC->i, REC->i >> 1", 0, 7));
        assertEquals("yes", render("\"%s\", REC->i ? \"yes\" : \"no\"", 0, 2));
        assertEquals("8 4 2", render("\"%zu %zu %d\", sizeof(long), sizeof(u32), (int)sizeof(short)", 0, 0));
        assertEquals("%", render("\"%%\"", 0, 0));
        assertEquals("{0x1,0x2,0xfe,0x4} 01 02 fe 04 0102fe04",
                render("\"%s %s %s\", __print_array(REC->arr, 4, 1), __print_hex(REC->arr, 4), __print_hex_str(REC->arr, 4)",
                        0, 0));
        assertEquals("READ|0x8 ZERO 0x5", render("\"%s %s %s\", __print_flags(REC->i, \"|\", {1, \"READ\"}, {2, \"WRITE\"}),"
                + " __print_symbolic(REC->ul, {0, \"ZERO\"}), __print_symbolic(5, {0, \"ZERO\"})", 0, 9));
        assertEquals("3 141592653", render("\"%llu %u\", __print_ns_to_secs(REC->ul), __print_ns_without_secs(REC->ul)",
                3_141_592_653L, 0));
    }

    @Test
    void jiffiesToMsecsNeedsHz() {
        KernelLayout l = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        EventFormat f = inline("j", INTS, "\"ms=%u\", jiffies_to_msecs(REC->ul)");
        EventPrinter p = EventPrinter.compile(f, l);
        EventRecord r = new TestRecords(f, l).integer("ul", 25).record();
        assertEquals("ms=100", p.render(r, new PrintContext(null, null, 250)));
        assertEquals("ms=25", p.render(r, new PrintContext(null, null, 1000)));
        RenderResult unknown = p.renderDetailed(r, PrintContext.empty());
        assertTrue(unknown.fallback());
        assertEquals("ul=0x19 i=0 arr=ARRAY[00, 00, 00, 00]", unknown.text());
    }

    @Test
    void badRecordsFallBackAndNeverThrow() {
        KernelLayout l = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        EventFormat f = inline("bad", INTS, "\"q=%d a=%d w=%999999999d\", 10 / REC->i, REC->arr[REC->i], REC->i");
        EventPrinter p = EventPrinter.compile(f, l);
        assertFalse(p.isFallback(), p.fallbackReason());
        RenderResult zero = p.renderDetailed(new TestRecords(f, l).integer("i", 0).record(), PrintContext.empty());
        assertTrue(zero.fallback());
        assertTrue(zero.reason().contains("division by zero"), zero.reason());
        assertEquals("ul=0x0 i=0 arr=ARRAY[00, 00, 00, 00]", zero.text());
        RenderResult range = p.renderDetailed(new TestRecords(f, l).integer("i", 9).record(), PrintContext.empty());
        assertTrue(range.fallback());
        assertTrue(range.reason().contains("index 9"), range.reason());
        RenderResult huge = p.renderDetailed(new TestRecords(f, l).integer("i", 2).record(), PrintContext.empty());
        assertFalse(huge.fallback(), huge.reason());
        assertTrue(huge.text().length() <= Vsprintf.MAX_WIDTH + 20, "width capped");
        // a record shorter than the format's fixed part
        EventRecord shortRec = new EventRecord(f, l, 0, 0, ByteBuffer.wrap(new byte[10]));
        RenderResult cut = p.renderDetailed(shortRec, PrintContext.empty());
        assertTrue(cut.fallback());
        assertEquals("ul=? i=? arr=?", cut.text());
    }

    @Test
    void unknownHelperGivesAFallbackPrinter() {
        EventFormat f = inline("u", INTS, "\"%s\", trace_seq_printf(p, \"x\")");
        EventPrinter p = EventPrinter.compile(f, new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8));
        assertTrue(p.isFallback());
        assertEquals("col 7: unknown helper trace_seq_printf", p.fallbackReason());
        EventPrinter bad = EventPrinter.compile(inline("b", INTS, "\"%d\", REC->i +"), new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8));
        assertTrue(bad.isFallback());
        assertTrue(bad.fallbackReason().startsWith("col 15: "), bad.fallbackReason());
    }

    @Test
    void mutatedSnapshotPrintFmtsNeverThrow() throws IOException {
        Random rnd = new Random(42);
        List<EventFormat> formats = SnapshotPrintFmtTest.snapshotFormats();
        for (int n = 0; n < 600; n++) {
            EventFormat f = formats.get(rnd.nextInt(formats.size()));
            String pf = f.printFmt();
            int cut = rnd.nextInt(pf.length() + 1);
            String mutated = switch (n % 3) {
                case 0 -> pf.substring(0, cut);
                case 1 -> pf.substring(0, cut) + "()[]{},?:\"%*.*ld".charAt(rnd.nextInt(16)) + pf.substring(cut);
                default -> pf;
            };
            EventFormat g = new EventFormat(f.system(), f.name(), f.id(), f.commonFields(), f.fields(), mutated);
            for (KernelLayout l : List.of(new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8), new KernelLayout(ByteOrder.BIG_ENDIAN, 4))) {
                EventPrinter p = EventPrinter.compile(g, l);
                byte[] junk = new byte[rnd.nextInt(g.fixedSize() + 64)];
                rnd.nextBytes(junk);
                RenderResult r = p.renderDetailed(new EventRecord(g, l, 0, 0, ByteBuffer.wrap(junk)),
                        new PrintContext(SymbolResolver.none(), null, 100));
                assertTrue(r.text() != null);
            }
        }
    }
}
