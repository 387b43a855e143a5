package org.tracewire.cli;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import picocli.CommandLine;

/**
 * Every command's {@code --help} teaches: it ends in an "Examples:" section with at least one
 * {@code tracewire <command> ...} line, and every example line that runs tracewire parses as
 * written (picocli's own parser, so an option renamed without its example fails here). The
 * summary a command shows in {@code tracewire --help} (the first line of its description) is one
 * complete sentence, not the first half of a longer one.
 */
class HelpTest {
    /** picocli's built-in {@code help} command carries its own text: not ours to give examples. */
    private static final String PICOCLI_HELP = "help";
    /** picocli's usage width: a longer example line would be wrapped and no longer run as written. */
    private static final int USAGE_WIDTH = 80;

    private static Map<String, CommandLine> subcommands() {
        Map<String, CommandLine> m = Main.commandLine(new String[0]).getSubcommands();
        assertEquals(Main.SUBCOMMANDS.size(), m.size(), m.keySet().toString());
        return m;
    }

    @Test
    void everyCommandsUsageEndsWithExamplesThatParse() {
        List<String> commands = new ArrayList<>(List.of(""));
        subcommands().keySet().stream().filter(n -> !n.equals(PICOCLI_HELP)).forEach(commands::add);
        int parsed = 0;
        for (String name : commands) {
            CommandLine cl = name.isEmpty() ? Main.commandLine(new String[0]) : subcommands().get(name);
            String usage = cl.getUsageMessage(CommandLine.Help.Ansi.OFF);
            int at = usage.indexOf("\nExamples:\n");
            assertTrue(at >= 0, "tracewire " + name + " --help has no Examples section:\n" + usage);
            for (String line : usage.substring(at).split("\n")) {
                assertTrue(line.length() <= USAGE_WIDTH - 1, "tracewire " + name + ": example line wraps: " + line);
            }
            List<List<String>> examples = examples(usage.substring(at));
            assertFalse(examples.isEmpty(), "tracewire " + name + ": no example runs tracewire");
            assertTrue(examples.stream().anyMatch(a -> name.isEmpty() || (!a.isEmpty() && a.get(0).equals(name))),
                    "tracewire " + name + ": no example of this command: " + examples);
            for (List<String> args : examples) {
                String[] a = args.toArray(new String[0]);
                assertDoesNotThrow(() -> Main.commandLine(a).parseArgs(a), "example does not parse: tracewire " + args);
                parsed++;
            }
        }
        assertTrue(parsed >= 2 * (commands.size() - 1), parsed + " examples");
    }

    @Test
    void everySummaryIsOneCompleteSentence() {
        String mainUsage = Main.commandLine(new String[0]).getUsageMessage(CommandLine.Help.Ansi.OFF);
        String joined = mainUsage.replaceAll("\\s+", " ");
        for (Map.Entry<String, CommandLine> e : subcommands().entrySet()) {
            // what picocli lists: the header when there is one, else the description's first line
            CommandLine.Model.UsageMessageSpec u = e.getValue().getCommandSpec().usageMessage();
            String[] text = u.header().length > 0 ? u.header() : u.description();
            assertTrue(text.length > 0, e.getKey() + " has no description");
            String summary = text[0].split("%n|\n")[0];
            assertTrue(summary.endsWith("."), "summary of " + e.getKey() + " is not a complete sentence: " + summary);
            // what `tracewire --help` lists: the name and the whole sentence, wrapped
            assertTrue(joined.contains(" " + e.getKey() + " " + summary.replaceAll("\\s+", " ")),
                    "tracewire --help does not list '" + e.getKey() + " " + summary + "':\n" + mainUsage);
        }
    }

    /** The tracewire command lines among a usage's example lines (after {@code sudo} or a pipe), split as sh does. */
    static List<List<String>> examples(String section) {
        List<List<String>> out = new ArrayList<>();
        for (String line : section.split("\n")) {
            if (!line.startsWith("    ")) {
                continue;
            }
            String cmd = line.strip();
            int pipe = cmd.lastIndexOf(" | ");
            if (pipe >= 0) {
                cmd = cmd.substring(pipe + 3).strip();
            }
            if (cmd.startsWith("sudo ")) {
                cmd = cmd.substring(5).strip();
            }
            List<String> words = words(cmd);
            if (!words.isEmpty() && words.get(0).equals("tracewire")) {
                out.add(words.subList(1, words.size()));
            }
        }
        return out;
    }

    /** Splits a command line into words as {@code sh} does for blanks, single and double quotes (no expansion). */
    static List<String> words(String s) {
        List<String> words = new ArrayList<>();
        StringBuilder w = null;
        char quote = 0;
        for (int i = 0; i < s.length(); i++) {
            char c = s.charAt(i);
            if (quote != 0) {
                if (c == quote) {
                    quote = 0;
                } else if (quote == '"' && c == '\\' && i + 1 < s.length() && "\"\\$`".indexOf(s.charAt(i + 1)) >= 0) {
                    w.append(s.charAt(++i));
                } else {
                    w.append(c);
                }
            } else if (c == ' ') {
                if (w != null) {
                    words.add(w.toString());
                    w = null;
                }
            } else {
                w = w == null ? new StringBuilder() : w;
                if (c == '\'' || c == '"') {
                    quote = c;
                } else {
                    w.append(c);
                }
            }
        }
        assertEquals(0, quote, "unbalanced quote in example: " + s);
        if (w != null) {
            words.add(w.toString());
        }
        return words;
    }

    @Test
    void wordsSplitAsShDoes() {
        assertEquals(List.of("filter", "-e", "sched:sched_switch", "prev_pid == 1 && next_comm ~ \"kworker*\""),
                words("filter -e sched:sched_switch 'prev_pid == 1 && next_comm ~ \"kworker*\"'"));
        assertEquals(List.of("a\"b", "c d"), words("\"a\\\"b\" c\" \"d"));
    }
}
