package org.tracewire.text;

/**
 * The Levenshtein distance between two names (an insertion, a deletion or a substitution of one
 * character costs 1): what the "did you mean" suggestions for event and field names rank by.
 */
public final class EditDistance {
    private EditDistance() {
    }

    /**
     * @return the number of single-character edits that turn {@code a} into {@code b}
     */
    public static int between(String a, String b) {
        int[] prev = new int[b.length() + 1];
        int[] cur = new int[b.length() + 1];
        for (int j = 0; j <= b.length(); j++) {
            prev[j] = j;
        }
        for (int i = 1; i <= a.length(); i++) {
            cur[0] = i;
            for (int j = 1; j <= b.length(); j++) {
                int cost = a.charAt(i - 1) == b.charAt(j - 1) ? 0 : 1;
                cur[j] = Math.min(Math.min(cur[j - 1] + 1, prev[j] + 1), prev[j - 1] + cost);
            }
            int[] t = prev;
            prev = cur;
            cur = t;
        }
        return prev[b.length()];
    }
}
