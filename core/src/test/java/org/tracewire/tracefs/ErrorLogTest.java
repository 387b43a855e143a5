package org.tracewire.tracefs;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

class ErrorLogTest {
    @Test
    void errorLogGivesMessageAndCaretPosition() {
        String text = """
                [ 1026.450300] event filter parse error: error: Field not found
                  Command: prev_pidd == 1
                           ^
                [ 1026.453090] event filter parse error: error: Missing matching quote
                  Command: prev_comm ~ "a
                                       ^
                """;
        ErrorLog log = ErrorLog.parse(text);
        assertEquals(2, log.entries().size());
        assertEquals(new ErrorLog.Entry("event filter parse error", "Field not found", "prev_pidd == 1", 0),
                log.entries().get(0));
        assertEquals(12, log.entries().get(1).position());
        assertEquals(1, log.since(1).size());
    }

}
