package org.tracewire.store;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.Statement;
import org.junit.jupiter.api.Test;

class SqlTest {
    @Test
    void literalsAndIdentifiersReadBackAsTheTextTheyQuote() throws Exception {
        String[] texts = {"fixture", "", "it's", "a\0b", "\0", "x'\0'\"y", "tab\there", "ünï"};
        try (Connection c = DriverManager.getConnection("jdbc:duckdb:"); Statement s = c.createStatement()) {
            for (String t : texts) {
                try (ResultSet rs = s.executeQuery("SELECT " + Sql.literal(t) + " AS " + Sql.quote(t))) {
                    rs.next();
                    assertEquals(t, rs.getString(1), "literal of " + t.replace("\0", "\\0"));
                    assertEquals(t.isEmpty() ? "_" : t.replace('\0', '\uFFFD'), rs.getMetaData().getColumnLabel(1));
                }
            }
        }
    }
}
