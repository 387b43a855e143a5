package org.tracewire.printfmt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.ByteBuffer;
import java.nio.ByteOrder;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatParser;
import org.tracewire.format.KernelLayout;
import org.tracewire.record.EventRecord;

/** Print fmts over kernel variables: {@code vmemmap_base} and struct-pointer arithmetic, as kmem:mm_page_free uses them. */
class KernelVariablesTest {
    static final String FORMAT = """
            name: mm_page_free
            ID: 9
            format:
            \tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;
            \tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;
            \tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;
            \tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;

            \tfield:unsigned long pfn;\toffset:8;\tsize:8;\tsigned:0;
            \tfield:unsigned int order;\toffset:16;\tsize:4;\tsigned:0;

            print fmt: "page=%p pfn=0x%lx order=%d", (((struct page *)vmemmap_base) + (REC->pfn)), REC->pfn, REC->order
            """;

    @Test
    void structPointerArithmeticScalesByTheCalibratedSize() {
        EventFormat f = FormatParser.parse("kmem", FORMAT, "inline");
        KernelLayout layout = new KernelLayout(ByteOrder.LITTLE_ENDIAN, 8);
        ByteBuffer b = ByteBuffer.allocate(24).order(ByteOrder.LITTLE_ENDIAN);
        b.putShort(0, (short) 9).putLong(8, 0x151d15L).putInt(16, 0);
        EventRecord r = new EventRecord(f, layout, 0, 0, b);
        EventPrinter p = EventPrinter.compile(f, layout);
        assertFalse(p.isFallback(), p.fallbackReason());
        // the line the kernel printed on this machine (Linux 6.18)
        PrintContext known = PrintContext.empty().withVariables(
                new KernelVariables(Map.of("vmemmap_base", 0xffffea0000000000L), Map.of("page", 64)));
        assertEquals("page=ffffea0005474540 pfn=0x151d15 order=0", p.render(r, known));
        // unknown variable or unknown struct size: the record falls back, nothing is guessed
        RenderResult noBase = p.renderDetailed(r, PrintContext.empty());
        assertTrue(noBase.fallback());
        RenderResult noSize = p.renderDetailed(r, PrintContext.empty().withVariables(
                new KernelVariables(Map.of("vmemmap_base", 0xffffea0000000000L), Map.of())));
        assertTrue(noSize.fallback());
        assertTrue(noSize.reason().contains("size of"), noSize.reason());
    }
}
