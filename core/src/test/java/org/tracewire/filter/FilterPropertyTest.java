package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.math.BigInteger;
import java.nio.ByteOrder;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;

/**
 * Properties over random filters (fixed seeds): printing re-parses to the same tree; valid trees
 * validate and compile; the kernel form means the same as the tree; invalid trees give problems,
 * never other exceptions; random text gives a tree or a positioned error, never anything else.
 */
class FilterPropertyTest {

    @Test
    void validTreesRoundTripValidateAndCompile() {
        RandomFilters gen = new RandomFilters(1);
        int n = 0;
        for (String event : Events.NAMES) {
            EventFormat f = Events.get(event);
            for (int i = 0; i < 1500; i++) {
                Filter filter = gen.valid(f, 1 + i % 5);
                String text = filter.toText();
                assertEquals(filter, Filter.parse(text), text);
                assertEquals(List.of(), FilterValidator.validate(filter, f), text);
                CompiledFilter cf = CompiledFilter.compile(filter, f, ByteOrder.LITTLE_ENDIAN);
                Filter kernel = Filter.parse(cf.kernel());
                assertEquals(List.of(), FilterValidator.validate(kernel, f), cf.kernel());
                assertTrue(cf.display().startsWith("tracewire.event == \"" + event + "\""), cf.display());
                String head = "ether proto 0x88b5 and ether[14] = 2 and (ether[15] & 0xf != 0";
                assertTrue(cf.bpf().equals(head + ")") || cf.bpf().startsWith(head + " or (ether[15] & 0x1f = 0x10 and ether[30:2] = 0x"
                        + Integer.toHexString(Short.reverseBytes((short) f.id()) & 0xffff)), cf.bpf());
                assertEquals(cf.bpfExact(), cf.warnings().stream().noneMatch(w -> w.startsWith("capture filter")));
                n++;
            }
        }
        assertEquals(7500, n);
    }

    @Test
    void kernelFormMeansTheSameAsTheTree() {
        RandomFilters gen = new RandomFilters(2);
        for (String event : Events.NAMES) {
            EventFormat f = Events.get(event);
            List<FilterField> fields = RandomFilters.filterable(f);
            for (int i = 0; i < 800; i++) {
                Filter filter = gen.valid(f, 3);
                Filter kernel = Filter.parse(KernelFilterCompiler.compile(filter, f));
                for (int k = 0; k < 10; k++) {
                    Map<String, Object> rec = new HashMap<>();
                    for (FilterField ff : fields) {
                        rec.put(Evaluator.canonical(ff), ff.type() == FilterField.Type.NUMBER ? gen.number(ff)
                                : gen.string(ff.maxLength() < 0 ? 20 : Math.min(20, ff.maxLength())));
                    }
                    assertEquals(Evaluator.eval(filter, f, rec), Evaluator.eval(kernel, f, rec),
                            filter.toText() + " vs " + kernel.toText() + " on " + rec);
                }
            }
        }
    }

    @Test
    void arbitraryTreesGiveProblemsNotExceptions() {
        RandomFilters gen = new RandomFilters(3);
        int invalid = 0;
        for (String event : Events.NAMES) {
            EventFormat f = Events.get(event);
            for (int i = 0; i < 2000; i++) {
                Filter filter = gen.any(f, 1 + i % 4);
                List<FilterProblem> problems = FilterValidator.validate(filter, f);
                try {
                    // a glob starting with '!' prints as "\\!...": same meaning, another tree; the text is stable
                    String text = filter.toText();
                    assertEquals(text, Filter.parse(text).toText());
                } catch (IllegalArgumentException e) {
                    assertTrue(e.getMessage().contains("cannot hold"), e.getMessage());
                    assertTrue(!problems.isEmpty(), "unprintable but valid: " + filter);
                }
                try {
                    CompiledFilter.compile(filter, f, ByteOrder.BIG_ENDIAN);
                    assertEquals(List.of(), problems);
                } catch (FilterSyntaxException e) {
                    assertTrue(!problems.isEmpty());
                    assertEquals(problems.get(0).message(), e.detail());
                    invalid++;
                }
            }
        }
        assertTrue(invalid > 5000, "most arbitrary trees are invalid: " + invalid);
    }

    @Test
    void randomTextParsesOrFailsWithAPosition() {
        RandomFilters gen = new RandomFilters(4);
        int parsed = 0;
        for (String event : Events.NAMES) {
            EventFormat f = Events.get(event);
            for (int i = 0; i < 10000; i++) {
                String text = i % 2 == 0 ? gen.text(f) : gen.mutate(gen.valid(f, 2).toText());
                parsed += checkText(text, f) ? 1 : 0;
            }
        }
        assertTrue(parsed > 1000, "some random texts parse: " + parsed);
    }

    /** @return true when the text parsed */
    private static boolean checkText(String text, EventFormat f) {
        Filter filter;
        try {
            filter = Filter.parse(text);
        } catch (FilterSyntaxException e) {
            assertTrue(e.position() >= 0 && e.position() <= text.length(), e.getMessage() + " in " + text);
            return false;
        } catch (RuntimeException e) {
            fail("parse threw " + e + " for: " + text);
            return false;
        }
        String printed = filter.toText();
        assertEquals(filter, Filter.parse(printed), text + " -> " + printed);
        for (FilterProblem p : FilterValidator.validate(filter, f)) {
            assertTrue(p.position() >= 0 && p.position() <= text.length(), p + " in " + text);
        }
        return true;
    }

    @Test
    void numbersSurviveEveryBase() {
        RandomFilters gen = new RandomFilters(5);
        for (int i = 0; i < 5000; i++) {
            BigInteger v = new BigInteger(64, gen.random());
            if (gen.random().nextBoolean() && v.bitLength() < 64) {
                v = v.negate();
            }
            String sign = v.signum() < 0 ? "-" : "";
            for (String t : new String[] {v.abs().toString(), "0x" + v.abs().toString(16), "0" + v.abs().toString(8)}) {
                Comparison c = (Comparison) Filter.parse("x == " + sign + t);
                assertEquals(v, ((Value.Num) c.value()).value(), t);
            }
        }
    }
}
