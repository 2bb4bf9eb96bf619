package io.deviceidentity.http;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

import com.fasterxml.jackson.core.JsonFactory;
import com.fasterxml.jackson.core.JsonGenerator;

/**
 * The JSON bodies of 503 answers ({@link ErrorBody}), rendered once per reason and message and then written as bytes.
 * In a storm nearly every answer is one of a handful of refusals, and on a pod of a fraction of a core the CPU of
 * serializing the same few bodies again and again is taken from bcrypt. Their messages are the services' own
 * sentences, a small fixed set; past {@value #MAX_CACHED} of them a body is rendered without being kept.
 */
final class RefusalBodies {

    private static final int MAX_CACHED = 256;
    private static final JsonFactory JSON = new JsonFactory();
    private static final Map<ErrorBody, byte[]> RENDERED = new ConcurrentHashMap<>();

    private RefusalBodies() {
    }

    /** {@code {"reason":…,"message":…}}, as the services' JSON writer renders an {@link ErrorBody}. */
    static byte[] of(String reason, String message) {
        ErrorBody body = new ErrorBody(reason, message);
        byte[] rendered = RENDERED.get(body);
        if (rendered == null) {
            rendered = render(body);
            if (RENDERED.size() < MAX_CACHED) {
                RENDERED.putIfAbsent(body, rendered);
            }
        }
        return rendered;
    }

    private static byte[] render(ErrorBody body) {
        ByteArrayOutputStream out = new ByteArrayOutputStream(128);
        try (JsonGenerator json = JSON.createGenerator(out)) {
            json.writeStartObject();
            json.writeStringField("reason", body.reason());
            json.writeStringField("message", body.message());
            json.writeEndObject();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return out.toByteArray();
    }
}
