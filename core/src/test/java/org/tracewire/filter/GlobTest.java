package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Random;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** {@link Glob}: lib/glob.c semantics, the kernel-safe form, and the regular expression. */
class GlobTest {

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", value = {
            "* => '' => true", "* => abc => true", "a* => abc => true", "a* => bac => false", "*c => abc => true", "*b* => abc => true",
            "a?c => abc => true", "a?c => ac => false", "[ab]c => bc => true", "[!ab]c => bc => false", "[!ab]c => xc => true",
            "[a-c]x => bx => true", "[a-c]x => dx => false", "[]]x => ]x => true", "[a-]x => -x => true", "[a => [a => true",
            "[a- => [a- => true", "a\\* => a* => true", "a\\* => ab => false", "\\[x] => [x] => true", "[^a] => ^ => true", "[^a] => b => false",
            "[c-a] => b => false", "abc => abc => true", "abc => abcd => false", "*a*a*a*b => aaaaaaab => true", "[!a] => '' => false",
    })
    void matchesLikeTheKernel(String pattern, String s, boolean expected) {
        assertEquals(expected, Glob.matches(pattern, s), pattern + " vs " + s);
        assertEquals(expected, Pattern.compile(Glob.toRegex(pattern)).matcher(s).matches(), Glob.toRegex(pattern));
    }

    @Test
    void regexAgreesWithGlobMatchOnRandomPatterns() {
        Random r = new Random(42);
        String alphabet = "ab*?[]!-\\^.$(";
        for (int n = 0; n < 20000; n++) {
            String p = random(r, alphabet, 6);
            if (Glob.problem(p) != null) {
                continue;
            }
            Pattern re = Pattern.compile(Glob.toRegex(p));
            for (int k = 0; k < 10; k++) {
                String s = random(r, "ab]-!^.$(*?[\\", 5);
                assertEquals(Glob.matches(p, s), re.matcher(s).matches(), "pattern " + p + " string " + s + " regex " + re);
            }
        }
    }

    private static String random(Random r, String alphabet, int max) {
        int len = r.nextInt(max + 1);
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < len; i++) {
            sb.append(alphabet.charAt(r.nextInt(alphabet.length())));
        }
        return sb.toString();
    }

    @ParameterizedTest
    @CsvSource(delimiterString = " => ", value = {
            "abc => abc", "abc* => abc*", "*abc* => *abc*", "*abc => *\\abc", "1x* => \\1x*", "1xy => \\1xy", "!a => \\!a",
            "* => *", "** => **", "*[ab] => *[ab]", "a?c => a?c", "*\\x => *\\x", "a*b => a*b",
    })
    void kernelFormForcesTheGlobMatcher(String pattern, String kernel) {
        assertEquals(kernel, Glob.forKernel(pattern));
    }

    @Test
    void kernelFormMatchesTheSame() {
        Random r = new Random(7);
        for (int n = 0; n < 5000; n++) {
            String p = random(r, "1a!*?[]\\", 5);
            if (Glob.problem(p) != null) {
                continue;
            }
            String k = Glob.forKernel(p);
            for (int j = 0; j < 5; j++) {
                String s = random(r, "1a!*?[]\\", 4);
                assertEquals(Glob.matches(p, s), Glob.matches(k, s), p + " / " + k + " on " + s);
            }
        }
    }

    @Test
    void trailingBackslashIsAProblem() {
        assertTrue(Glob.problem("a\\") != null);
        assertFalse(Glob.problem("a\\\\") != null);
    }
}
