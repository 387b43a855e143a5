package org.tracewire.filter;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;
import org.tracewire.format.EventFormat;
import org.tracewire.format.FormatParser;

/**
 * The SQL form names a field as the store names its column: a field named like a typed table's key
 * column (here {@code file_offset} and {@code trace_ts}, keys since decision 0032) is that name with
 * {@code _}; the task's name is joined in from {@code events} only when the condition reads it.
 */
class SqlFilterCompilerTest {
    private static final EventFormat F = FormatParser.parse("test", "name: keyed\nID: 9\nformat:\n"
            + "\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n"
            + "\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n"
            + "\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n"
            + "\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n\n"
            + "\tfield:u64 file_offset;\toffset:8;\tsize:8;\tsigned:0;\n"
            + "\tfield:u64 trace_ts;\toffset:16;\tsize:8;\tsigned:0;\n\n"
            + "print fmt: \"off=%llu ts=%llu\", REC->file_offset, REC->trace_ts\n", "keyed");

    @Test
    void aFieldNamedLikeAKeyColumnIsTheColumnWithAnUnderscore() {
        String sql = SqlFilterCompiler.compile(Filter.parse("file_offset == 5 && trace_ts > 1 && common_flags & 1"), F);
        assertTrue(sql.contains("\"file_offset_\"") && sql.contains("\"trace_ts_\""), sql);
        assertTrue(sql.contains("\"common_flags\"") && !sql.contains("\"common_flags_\""), sql);
        assertEquals("\"t\"", SqlFilterCompiler.relation("t", sql), "no task name: the table alone");
    }

    @Test
    void theTasksNameIsJoinedInFromEvents() {
        String sql = SqlFilterCompiler.compile(Filter.parse("comm == \"x\""), F);
        String rel = SqlFilterCompiler.relation("ke\"yed", sql);
        assertTrue(rel.contains("FROM \"ke\"\"yed\" t JOIN events e ON e.host = t.host AND e.frame = t.frame"), rel);
        assertTrue(rel.contains("e.comm AS " + SqlFilterCompiler.TASK_COMM), rel);
    }
}
