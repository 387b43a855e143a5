package org.tracewire.protocol;

import com.fasterxml.jackson.annotation.JsonInclude;
import com.fasterxml.jackson.annotation.JsonTypeName;
import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonMappingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.MapperFeature;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;
import com.fasterxml.jackson.databind.cfg.CoercionAction;
import com.fasterxml.jackson.databind.cfg.CoercionInputShape;
import com.fasterxml.jackson.databind.exc.UnrecognizedPropertyException;
import com.fasterxml.jackson.databind.json.JsonMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import com.fasterxml.jackson.databind.type.LogicalType;
import java.lang.reflect.RecordComponent;
import java.nio.charset.StandardCharsets;
import java.util.Arrays;
import java.util.Collection;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.tracewire.protocol.Messages.Command;

/**
 * The backend protocol's JSON mapping, done once for both ends ({@code docs/backend-protocol.md}):
 * JSON lines (one UTF-8 object per {@code \n}-terminated line), each {@code {"type": T, "id": N?,
 * ...body}}, where the body is one of the records in {@link Messages} and {@code T} its
 * {@link JsonTypeName}.
 *
 * <p>Reading is strict, so a malformed message is refused with a message that says where: unknown
 * fields ({@code unknown field 'events[0].filtr'}), missing or null {@link Required} fields and
 * values of the wrong kind ({@code 'events[0].event' must be a string}; no coercion of
 * {@code "1"} to a number, {@code 1.5} to an integer or {@code 5} to a string). Writing omits null
 * optional fields (except where a record says otherwise).
 *
 * <p>Limits: a command line is at most {@value #MAX_COMMAND_BYTES} bytes, a line from the backend
 * at most {@value #MAX_MESSAGE_BYTES} bytes (both counted without the {@code \n}).
 */
public final class Protocol {
    /** Longest command line (app → backend), bytes. */
    public static final int MAX_COMMAND_BYTES = 64 * 1024;
    /** Longest line from the backend (a {@code format} or {@code events} reply fits easily), bytes. */
    public static final int MAX_MESSAGE_BYTES = 16 * 1024 * 1024;
    /** The TAP interface a capture creates unless told otherwise (CLI {@code -i}, the app's capture view). */
    public static final String DEFAULT_IFACE = "tw0";
    /**
     * The protocol version the backend reports in {@link Messages.Hello}. 0.2.0 dropped 0.1.0's
     * pushed event stream ({@code events}/{@code frames} messages, {@code startCapture.stream},
     * {@code stats.streamDropped}): clients read the capture's pcapng instead.
     */
    public static final String VERSION = "0.2.0";
    /** The version before {@link #VERSION}, whose fields {@link #read} recognises to name the mismatch. */
    static final String PREVIOUS_VERSION = "0.1.0";
    /** Fields only {@link #PREVIOUS_VERSION} has, by message type (for {@code stopped}: inside its stats). */
    private static final Map<String, String> RETIRED = Map.of("startCapture", "stream", "stats", "streamDropped",
            "stopped", "streamDropped");

    private static final ObjectMapper MAPPER = newMapper();
    private static final Map<String, Class<? extends Command>> COMMANDS = new LinkedHashMap<>();

    static {
        for (Class<?> c : Command.class.getPermittedSubclasses()) {
            @SuppressWarnings("unchecked")
            Class<? extends Command> cmd = (Class<? extends Command>) c;
            COMMANDS.put(typeOf(cmd), cmd);
        }
    }

    private Protocol() {
    }

    /**
     * A line split into its envelope and body.
     *
     * @param type the message type
     * @param id   the command id, or null when absent
     * @param body the other fields
     */
    public record Envelope(String type, Long id, ObjectNode body) {
    }

    private static ObjectMapper newMapper() {
        ObjectMapper m = JsonMapper.builder()
                .enable(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                .enable(DeserializationFeature.FAIL_ON_NULL_FOR_PRIMITIVES)
                .enable(DeserializationFeature.FAIL_ON_TRAILING_TOKENS)
                .disable(DeserializationFeature.ACCEPT_FLOAT_AS_INT)
                .disable(MapperFeature.ALLOW_COERCION_OF_SCALARS)
                .disable(SerializationFeature.FAIL_ON_EMPTY_BEANS)
                .serializationInclusion(JsonInclude.Include.NON_NULL)
                .build();
        m.coercionConfigFor(LogicalType.Textual)
                .setCoercion(CoercionInputShape.Integer, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Float, CoercionAction.Fail)
                .setCoercion(CoercionInputShape.Boolean, CoercionAction.Fail);
        return m;
    }

    /** The protocol's configured Jackson mapper (strict reading, null optional fields omitted). */
    public static ObjectMapper mapper() {
        return MAPPER;
    }

    /**
     * The {@code type} of a message record.
     *
     * @throws IllegalArgumentException when the class is not a message of {@link Messages}
     */
    public static String typeOf(Class<?> message) {
        JsonTypeName t = message.getAnnotation(JsonTypeName.class);
        if (t == null) {
            throw new IllegalArgumentException(message.getName() + " is not a protocol message");
        }
        return t.value();
    }

    /** The command types, e.g. {@code hello}, {@code startCapture}, in declaration order. */
    public static Collection<String> commandTypes() {
        return List.copyOf(COMMANDS.keySet());
    }

    /**
     * One message as JSON text, without the newline: {@code {"type": T, "id": id, ...fields}}.
     *
     * @param message a record of {@link Messages}
     * @param id      the command id (a command, or a reply to one), or null
     */
    public static String toJson(Object message, Long id) {
        ObjectNode n = MAPPER.createObjectNode();
        n.put("type", typeOf(message.getClass()));
        if (id != null) {
            n.put("id", id);
        }
        n.setAll((ObjectNode) MAPPER.valueToTree(message));
        try {
            return MAPPER.writeValueAsString(n);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("cannot write " + n.get("type"), e);
        }
    }

    /**
     * One message as a line ({@link #toJson} plus {@code \n}, UTF-8), checked against a limit.
     *
     * @param message  a record of {@link Messages}
     * @param id       the command id, or null
     * @param maxBytes the longest line allowed without the newline ({@link #MAX_COMMAND_BYTES} or
     *                 {@link #MAX_MESSAGE_BYTES})
     * @throws ProtocolException when the line is longer than {@code maxBytes}
     */
    public static byte[] encodeLine(Object message, Long id, int maxBytes) throws ProtocolException {
        byte[] json = toJson(message, id).getBytes(StandardCharsets.UTF_8);
        if (json.length > maxBytes) {
            throw new ProtocolException(typeOf(message.getClass()) + " message is " + json.length
                    + " bytes; the protocol allows " + maxBytes);
        }
        byte[] line = Arrays.copyOf(json, json.length + 1);
        line[json.length] = '\n';
        return line;
    }

    /**
     * Splits a line into envelope and body (the size limit is the reader's job).
     *
     * @param line one line without its newline
     * @throws ProtocolException when it is not JSON, not an object, has no string {@code type}, or
     *                           an {@code id} that is not an integer
     */
    public static Envelope parse(String line) throws ProtocolException {
        JsonNode n;
        try {
            n = MAPPER.readTree(line);
        } catch (JsonProcessingException e) {
            throw new ProtocolException("not JSON: " + e.getOriginalMessage(), e);
        }
        if (n == null || !n.isObject() || !n.path("type").isTextual()) {
            throw new ProtocolException("a message is a JSON object with a string 'type'");
        }
        ObjectNode body = ((ObjectNode) n).deepCopy();
        String type = body.remove("type").asText();
        JsonNode idNode = body.remove("id");
        Long id = null;
        if (idNode != null && !idNode.isNull()) {
            if (!idNode.isIntegralNumber() || !idNode.canConvertToLong()) {
                throw new ProtocolException("'id' must be an integer");
            }
            id = idNode.asLong();
        }
        return new Envelope(type, id, body);
    }

    /**
     * The body of a message as the given record, strictly.
     *
     * @param e   the envelope from {@link #parse}
     * @param cls the expected record of {@link Messages}
     * @throws ProtocolException when the type differs from the record's, or a field is unknown,
     *                           missing or of the wrong kind (the message names the field's path)
     */
    public static <T> T read(Envelope e, Class<T> cls) throws ProtocolException {
        String want = typeOf(cls);
        if (!want.equals(e.type())) {
            throw new ProtocolException("expected a '" + want + "' message, got '" + e.type() + "'");
        }
        checkVersion(e);
        try {
            return MAPPER.treeToValue(e.body(), cls);
        } catch (JsonProcessingException ex) {
            throw new ProtocolException(describe(ex, cls), ex);
        } catch (IllegalArgumentException ex) {
            throw new ProtocolException(want + ": " + ex.getMessage(), ex);
        }
    }

    /**
     * Refuses a message of {@link #PREVIOUS_VERSION} by a field only that version has, naming both
     * versions (rather than "unknown field", which does not say what to do).
     *
     * @throws ProtocolException when the body carries a retired field
     */
    private static void checkVersion(Envelope e) throws ProtocolException {
        String field = RETIRED.get(e.type());
        JsonNode where = "stopped".equals(e.type()) ? e.body().path("stats") : e.body();
        if (field != null && where.has(field)) {
            throw new ProtocolException(e.type() + ": '" + field + "' is a field of protocol " + PREVIOUS_VERSION
                    + "; this end speaks " + VERSION + ": the app or extcap and the backend come from different "
                    + "versions of tracewire (update the older one, e.g. the copy in /opt/tracewire)");
        }
    }

    /**
     * The versions of two ends agree.
     *
     * @param theirs the version the other end reports ({@link Messages.Hello#version()})
     * @throws ProtocolException naming both versions when they differ
     */
    public static void checkVersion(String theirs) throws ProtocolException {
        if (!VERSION.equals(theirs)) {
            throw new ProtocolException("the backend speaks protocol " + theirs + ", this client " + VERSION
                    + ": they come from different versions of tracewire (update the older one, e.g. the copy in "
                    + "/opt/tracewire)");
        }
    }

    /**
     * A command by its type.
     *
     * @throws ProtocolException for an unknown type ({@code unknown command type 'x'}) or a bad body
     */
    public static Command readCommand(Envelope e) throws ProtocolException {
        Class<? extends Command> cls = COMMANDS.get(e.type());
        if (cls == null) {
            throw new ProtocolException("unknown command type '" + e.type() + "'");
        }
        return read(e, cls);
    }

    /** What is wrong, and where, in words: {@code 'events[0].event' must be a string}. */
    private static String describe(JsonProcessingException ex, Class<?> top) {
        if (!(ex instanceof JsonMappingException m) || m.getPath().isEmpty()) {
            return typeOf(top) + ": " + ex.getOriginalMessage();
        }
        StringBuilder path = new StringBuilder();
        for (JsonMappingException.Reference r : m.getPath()) {
            if (r.getFieldName() != null) {
                path.append(path.length() == 0 ? "" : ".").append(r.getFieldName());
            } else if (r.getIndex() >= 0) {
                path.append('[').append(r.getIndex()).append(']');
            }
        }
        if (ex instanceof UnrecognizedPropertyException) {
            return "unknown field '" + path + "' in " + typeOf(top);
        }
        JsonMappingException.Reference last = m.getPath().get(m.getPath().size() - 1);
        Object from = last.getFrom();
        Class<?> owner = from instanceof Class<?> c ? c : from == null ? null : from.getClass();
        String kind = owner == null || last.getFieldName() == null ? null : kindOf(owner, last.getFieldName());
        if (kind == null) {
            return "'" + path + "': " + ex.getOriginalMessage();
        }
        return "'" + path + "' must be " + kind;
    }

    private static String kindOf(Class<?> owner, String field) {
        if (!owner.isRecord()) {
            return null;
        }
        for (RecordComponent rc : owner.getRecordComponents()) {
            if (rc.getName().equals(field)) {
                Class<?> t = rc.getType();
                if (t == String.class) {
                    return "a string";
                }
                if (t == boolean.class || t == Boolean.class) {
                    return "true or false";
                }
                if (t == int.class || t == Integer.class) {
                    return "an integer (32 bits)";
                }
                if (t == long.class || t == Long.class) {
                    return "an integer";
                }
                if (t == double.class || t == Double.class) {
                    return "a number";
                }
                if (List.class.isAssignableFrom(t)) {
                    return "an array";
                }
                return "an object";
            }
        }
        return null;
    }
}
