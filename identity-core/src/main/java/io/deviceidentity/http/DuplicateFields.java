package io.deviceidentity.http;

import java.util.ArrayDeque;
import java.util.Deque;

import com.fasterxml.jackson.core.JsonParseException;
import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonStreamContext;

/**
 * A JSON object with the same key twice is refused rather than resolved last-wins: two readers of one body (a
 * proxy, a log, this service) could otherwise act on different values. {@link JsonBodies} turns on the parser's
 * {@link JsonParser.Feature#STRICT_DUPLICATE_DETECTION}; this names the repeated field in the 400.
 */
final class DuplicateFields {

    /** Longest caller-chosen path quoted in a message. */
    private static final int MAX_SHOWN = 96;

    private DuplicateFields() {
    }

    /** Throws {@code 400 duplicate_field} if {@code failure} is the parser's duplicate-key error; else returns. */
    static void refuseIfDuplicate(Exception failure) {
        if (failure instanceof JsonParseException parse && parse.getOriginalMessage() != null
                && parse.getOriginalMessage().startsWith("Duplicate field")
                && parse.getProcessor() != null) {
            String path = path(parse.getProcessor().getParsingContext());
            if (path.length() > MAX_SHOWN) {
                path = path.substring(0, MAX_SHOWN) + "...";
            }
            throw InvalidRequestException.badRequest("duplicate_field",
                    "field '" + path + "' appears more than once; each field may be given once");
        }
    }

    /** {@code acl[2].topic}-style path of the parser's current field. */
    private static String path(JsonStreamContext context) {
        Deque<String> parts = new ArrayDeque<>();
        for (JsonStreamContext at = context; at != null && !at.inRoot(); at = at.getParent()) {
            if (at.inArray()) {
                parts.push("[" + Math.max(at.getCurrentIndex(), 0) + "]");
            } else {
                String name = at.getCurrentName();
                parts.push((at.getParent() != null && !at.getParent().inRoot() ? "." : "") + (name == null ? "?" : name));
            }
        }
        return String.join("", parts);
    }
}
