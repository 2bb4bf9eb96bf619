package io.deviceidentity.http;

import java.io.IOException;
import java.net.URLDecoder;
import java.nio.ByteBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;
import java.util.List;
import java.util.Locale;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Strict reading of JSON request bodies: a body that is not one JSON object, or a field of the wrong type, is a
 * 400 with a reason, never a 500. Parsing is done here rather than by the framework so that every such failure has
 * the same JSON error shape.
 */
public final class JsonBodies {

    private JsonBodies() {
    }

    public static final String FORM = "application/x-www-form-urlencoded";

    /**
     * The body of an EMQX HTTP authenticator or authorization source, which EMQX sends either as JSON or, when its
     * {@code content-type} header is set so, as {@code application/x-www-form-urlencoded}: both give the same fields,
     * every value a string. A form body that starts with <code>{</code> is read as JSON (that is what
     * {@code curl -d '{...}'} sends without a content-type header; EMQX percent-encodes the braces). Any other content
     * type is a {@code 415 unsupported_media_type}.
     */
    public static ObjectNode emqxObject(ObjectMapper json, byte[] body, String contentType) {
        String type = contentType == null ? "" : contentType.split(";", 2)[0].trim().toLowerCase(Locale.ROOT);
        if (type.isEmpty() || type.equals("application/json") || type.endsWith("+json")) {
            return object(json, body);
        }
        if (type.equals(FORM)) {
            return startsWithBrace(body) ? object(json, body) : form(json, body);
        }
        throw new InvalidRequestException(415, "unsupported_media_type",
                "the body must be JSON (content-type: application/json) or application/x-www-form-urlencoded,"
                        + " as EMQX's HTTP authenticator sends it; got '" + printable(type) + "'");
    }

    /** A form body ({@code a=1&b=2}, UTF-8, percent-encoded) as string fields; a field given twice is a 400. */
    static ObjectNode form(ObjectMapper json, byte[] body) {
        String text;
        try {
            text = StandardCharsets.UTF_8.newDecoder().onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .decode(ByteBuffer.wrap(body == null ? new byte[0] : body)).toString();
        } catch (CharacterCodingException notUtf8) {
            throw InvalidRequestException.badRequest("malformed_form", "form body is not valid UTF-8");
        }
        ObjectNode object = json.createObjectNode();
        if (text.isEmpty()) {
            return object;
        }
        for (String pair : text.split("&", -1)) {
            if (pair.isEmpty()) {
                continue;
            }
            int equals = pair.indexOf('=');
            String name = decode(equals < 0 ? pair : pair.substring(0, equals));
            String value = equals < 0 ? "" : decode(pair.substring(equals + 1));
            if (object.has(name)) {
                throw InvalidRequestException.badRequest("invalid_field",
                        "field '" + printable(name) + "' is given twice");
            }
            object.put(name, value);
        }
        return object;
    }

    private static String decode(String encoded) {
        try {
            return URLDecoder.decode(encoded, StandardCharsets.UTF_8);
        } catch (IllegalArgumentException malformed) {
            throw InvalidRequestException.badRequest("malformed_form", "form body has a malformed %-escape");
        }
    }

    private static boolean startsWithBrace(byte[] body) {
        if (body != null) {
            for (byte b : body) {
                if (b != ' ' && b != '\t' && b != '\r' && b != '\n') {
                    return b == '{';
                }
            }
        }
        return false;
    }

    /** Caller-supplied text for a message: short, and only printable ASCII. */
    private static String printable(String text) {
        String shown = text.length() > 64 ? text.substring(0, 64) + "..." : text;
        return shown.replaceAll("[^\\x20-\\x7e]", "?");
    }

    public static ObjectNode object(ObjectMapper json, byte[] body) {
        if (body == null || body.length == 0) {
            throw InvalidRequestException.badRequest("malformed_json", "request body must be a JSON object");
        }
        JsonNode node;
        try (var parser = json.createParser(body)) {
            parser.enable(JsonParser.Feature.STRICT_DUPLICATE_DETECTION);
            node = json.readTree(parser);
            if (parser.nextToken() != null) {
                throw InvalidRequestException.badRequest("malformed_json", "request body must hold one JSON object");
            }
        } catch (IOException malformed) {
            DuplicateFields.refuseIfDuplicate(malformed);
            // Covers syntax errors and bytes that are not valid UTF-8; the parser's message may quote the input.
            throw InvalidRequestException.badRequest("malformed_json", "request body is not valid UTF-8 JSON");
        }
        if (!(node instanceof ObjectNode object)) {
            throw InvalidRequestException.badRequest("malformed_json", "request body must be a JSON object");
        }
        return object;
    }

    /** A string field that must be present (it may be empty). */
    public static String requiredString(ObjectNode body, String field) {
        JsonNode value = body.get(field);
        if (value == null || value.isNull()) {
            throw InvalidRequestException.badRequest("missing_field", "field '" + field + "' is required");
        }
        return string(value, field);
    }

    /**
     * The string fields of a body, in the order named: each of {@code required} as {@link #requiredString} reads it,
     * then each of {@code optional} as {@link #optionalString} with {@code ""} for a missing one. One call reads a
     * whole EMQX body, whose every field is a string.
     */
    public static String[] strings(ObjectNode body, List<String> required, List<String> optional) {
        String[] values = new String[required.size() + optional.size()];
        int next = 0;
        for (String field : required) {
            values[next++] = requiredString(body, field);
        }
        for (String field : optional) {
            values[next++] = optionalString(body, field, "");
        }
        return values;
    }

    /** A string field that may be missing or null; {@code fallback} then. */
    public static String optionalString(ObjectNode body, String field, String fallback) {
        JsonNode value = body.get(field);
        return value == null || value.isNull() ? fallback : string(value, field);
    }

    private static String string(JsonNode value, String field) {
        if (!value.isTextual()) {
            throw InvalidRequestException.badRequest("invalid_field", "field '" + field + "' must be a string");
        }
        return value.textValue();
    }
}
