package org.tracewire.printfmt;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import org.junit.jupiter.api.Test;

/** Shapes of the AST and errors with columns. */
class PrintFmtParserTest {

    @Test
    void formatStringAndArguments() {
        PrintFmt pf = PrintFmtParser.parse("\"a=%d \" \"b=%-08.3lx%%\\n\", REC->a, (u8)REC->b[2]", null);
        assertEquals("a=%d b=%-08.3lx%%\n", pf.format());
        assertEquals(5, pf.segments().size());
        FormatSegment.Conversion b = (FormatSegment.Conversion) pf.segments().get(3);
        assertEquals("-0", b.flags());
        assertEquals(8, b.width());
        assertEquals(3, b.precision());
        assertEquals("l", b.qualifier());
        assertEquals('x', b.conversion());
        assertEquals(new FormatSegment.Literal("%\n"), pf.segments().get(4));
        assertInstanceOf(Expr.FieldRef.class, pf.args().get(0));
        Expr.Cast cast = assertInstanceOf(Expr.Cast.class, pf.args().get(1));
        assertEquals("u8", cast.type().text());
        assertInstanceOf(Expr.Index.class, cast.operand());
        assertEquals(35, cast.column());
    }

    @Test
    void pointerExtensionsConsumeAlphanumerics() {
        PrintFmt pf = PrintFmtParser.parse("\"%pISpc %ps %p %*pbl\", REC->a, REC->b, REC->c, 8, REC->d", null);
        List<FormatSegment.Conversion> c = pf.segments().stream().filter(s -> s instanceof FormatSegment.Conversion)
                .map(s -> (FormatSegment.Conversion) s).toList();
        assertEquals(List.of("ISpc", "s", "", "bl"), c.stream().map(FormatSegment.Conversion::extension).toList());
        assertEquals(FormatSegment.Conversion.STAR, c.get(3).width());
    }

    @Test
    void precedenceAndTernary() {
        PrintFmt pf = PrintFmtParser.parse("\"%d\", 1 + 2 * 3 << 1 == 14 && !0 ? 0x10UL : -1", null);
        Expr.Ternary t = assertInstanceOf(Expr.Ternary.class, pf.args().get(0));
        Expr.Binary and = assertInstanceOf(Expr.Binary.class, t.cond());
        assertEquals("&&", and.op());
        Expr.IntLit lit = assertInstanceOf(Expr.IntLit.class, t.then());
        assertEquals(16, lit.value());
        assertTrue(lit.longLiteral());
    }

    @Test
    void printTablesAndCalls() {
        PrintFmt pf = PrintFmtParser.parse("\"%s\", __print_flags(REC->f, \"|\", { 0x1, \"A\" }, { 2, \"B\" })", null);
        Expr.Call call = assertInstanceOf(Expr.Call.class, pf.args().get(0));
        assertEquals("__print_flags", call.name());
        assertEquals(4, call.args().size());
        assertInstanceOf(Expr.Braced.class, call.args().get(2));
    }

    @Test
    void errorsNameEventAndColumn() {
        PrintFmtException e = assertThrows(PrintFmtException.class, () -> PrintFmtParser.parse("\"%d\", REC->a +", null));
        assertEquals(15, e.column());
        assertTrue(e.getMessage().contains("col 15"), e.getMessage());
        e = assertThrows(PrintFmtException.class, () -> PrintFmtParser.parse("\"%d %d\", 1", null));
        assertTrue(e.getMessage().contains("2 conversion argument(s) but 1"), e.getMessage());
        e = assertThrows(PrintFmtException.class, () -> PrintFmtParser.parse("\"%q\", 1", null));
        assertEquals(2, e.column());
        e = assertThrows(PrintFmtException.class, () -> PrintFmtParser.parse("REC->a", null));
        assertEquals(1, e.column());
        e = assertThrows(PrintFmtException.class, () -> PrintFmtParser.parse("\"abc", null));
        assertEquals(1, e.column());
        e = assertThrows(PrintFmtException.class, () -> PrintFmtParser.parse("\"%d\", ({ 1; })", null));
        assertEquals(8, e.column());
    }
}
