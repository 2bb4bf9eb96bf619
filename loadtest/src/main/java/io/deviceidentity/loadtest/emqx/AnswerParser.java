package io.deviceidentity.loadtest.emqx;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.vertx.core.buffer.Buffer;

/** Reads auth-service's answer the way the report needs it: status plus result (200) or reason (429/503). */
final class AnswerParser {

    private static final ObjectMapper JSON = new ObjectMapper();

    private AnswerParser() {
    }

    static Answer parse(int status, Buffer body) {
        String field = status == 200 ? "result" : "reason";
        String value = textField(body, field);
        if (value == null) {
            // EMQX ignores a 200 it cannot read; keep such answers visible instead of guessing.
            return new Answer(status, status == 200 ? "unreadable" : "http_" + status);
        }
        return new Answer(status, status == 200 || status == 429 || status == 503 ? value : "http_" + status);
    }

    private static String textField(Buffer body, String field) {
        if (body == null || body.length() == 0) {
            return null;
        }
        try {
            JsonNode node = JSON.readTree(body.getBytes()).get(field);
            return node != null && node.isTextual() ? node.asText() : null;
        } catch (java.io.IOException notJson) {
            return null;
        }
    }
}
