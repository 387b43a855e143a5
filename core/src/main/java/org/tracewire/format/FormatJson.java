package org.tracewire.format;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The JSON shape of an {@link EventFormat}, shared by {@code ./tracewire formats --json} and the
 * backend's {@code format} reply: {@code {system, name, id, fields: [{name, type, offset, size,
 * signed, kind, arrayLength, common, relative}], printFmt}}, common fields first.
 */
public final class FormatJson {
    private FormatJson() {
    }

    /** Adds one event's JSON object to {@code array}. */
    public static ObjectNode add(ArrayNode array, EventFormat f) {
        ObjectNode ev = array.addObject();
        fill(ev, f);
        return ev;
    }

    /** A new JSON object for one event. */
    public static ObjectNode toNode(ObjectMapper mapper, EventFormat f) {
        ObjectNode ev = mapper.createObjectNode();
        fill(ev, f);
        return ev;
    }

    private static void fill(ObjectNode ev, EventFormat f) {
        ev.put("system", f.system());
        ev.put("name", f.name());
        ev.put("id", f.id());
        ArrayNode fields = ev.putArray("fields");
        for (Field x : f.allFields()) {
            ObjectNode o = fields.addObject();
            o.put("name", x.name());
            o.put("type", x.type());
            o.put("offset", x.offset());
            o.put("size", x.size());
            o.put("signed", x.signed());
            o.put("kind", x.kind().name());
            o.put("arrayLength", x.arrayLength());
            o.put("common", x.common());
            o.put("relative", x.relative());
        }
        ev.put("printFmt", f.printFmt());
    }
}
