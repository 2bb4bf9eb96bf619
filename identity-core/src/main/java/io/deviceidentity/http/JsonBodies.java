package io.deviceidentity.http;

import java.io.IOException;

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
