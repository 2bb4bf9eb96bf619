package io.deviceidentity.auth.authn;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.function.Consumer;

import jakarta.ws.rs.core.Response;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.http.ErrorResponses;
import io.quarkus.vertx.http.runtime.VertxHttpRecorder;
import io.vertx.core.Context;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServerRequest;
import io.vertx.core.http.HttpServerResponse;
import io.vertx.ext.web.RoutingContext;

/**
 * The request and answer of {@link AuthnRoute}, served on a plain Vert.x route instead of Quarkus REST, with the same
 * answers ({@link io.deviceidentity.http.RequestAnswerer}'s, including the error bodies of {@link ErrorResponses}).
 * Only {@code /mqtt/authn} needs it, the one endpoint whose every microsecond is taken from bcrypt in a storm
 * (docs/overload.md), so it lives beside its route.
 */
final class VertxRoutes {

    /** Used only when Quarkus did not store its body limit for the request (it does whenever one is configured). */
    static final long FALLBACK_MAX_BODY = 16 * 1024;

    private VertxRoutes() {
    }

    /**
     * Reads the whole body, then hands it to {@code onBody} on the event loop. A body over
     * {@code quarkus.http.limits.max-body-size} is answered 413 and the connection closed: a declared length over it
     * is refused by Quarkus before any route runs, a chunked body here, as soon as it outgrows the limit.
     */
    static void readBody(RoutingContext context, ObjectMapper json, Consumer<byte[]> onBody) {
        HttpServerRequest request = context.request();
        Long stored = context.get(VertxHttpRecorder.MAX_REQUEST_SIZE_KEY);
        long limit = stored == null ? FALLBACK_MAX_BODY : stored;
        Buffer body = Buffer.buffer(512);
        boolean[] refused = {false};
        request.handler(chunk -> {
            if (refused[0]) {
                return;
            }
            if ((long) body.length() + chunk.length() > limit) {
                refused[0] = true;
                send(context.response(), ErrorResponses.tooLarge(), json);
                request.connection().close();
                return;
            }
            body.appendBuffer(chunk);
        });
        request.endHandler(ended -> {
            if (!refused[0]) {
                onBody.accept(body.getBytes());
            }
        });
        request.exceptionHandler(failure -> refused[0] = true);
        request.resume();
    }

    /**
     * Writes the answer once it is decided, on the request's event loop: a decision completed on a database or bcrypt
     * thread (the latter at idle priority) is not serialized there, and Vert.x writes from its own thread without a
     * second hop.
     */
    static void answerWhenDecided(RoutingContext context, CompletionStage<Response> answer, ObjectMapper json) {
        Context requestContext = Vertx.currentContext();
        answer.whenComplete((response, failure) -> {
            Response decided = failure == null ? response : ErrorResponses.answerFor(failure).response();
            if (requestContext == null || Vertx.currentContext() == requestContext) {
                send(context.response(), decided, json);
            } else {
                requestContext.runOnContext(ignored -> send(context.response(), decided, json));
            }
        });
    }

    /** Answers at once, on the calling event loop: a refusal decided before the body is read. */
    static void answerNow(RoutingContext context, Response response, ObjectMapper json) {
        send(context.response(), response, json);
    }

    /** Status, headers and body of {@code response}; nothing when the caller has gone. */
    static void send(HttpServerResponse out, Response response, ObjectMapper json) {
        if (out.ended() || out.closed()) {
            return;
        }
        Buffer body;
        try {
            body = Buffer.buffer(bodyOf(response, json));
        } catch (JsonProcessingException defect) {
            send(out, ErrorResponses.answerFor(defect).response(), json);
            return;
        }
        out.setStatusCode(response.getStatus());
        for (Map.Entry<String, List<String>> header : response.getStringHeaders().entrySet()) {
            out.putHeader(header.getKey(), header.getValue());
        }
        out.end(body);
    }

    /**
     * The entity as bytes: rendered bytes as they are (the services render their frequent answers once), anything
     * else as the services' JSON writer writes it.
     */
    static byte[] bodyOf(Response response, ObjectMapper json) throws JsonProcessingException {
        Object entity = response.getEntity();
        if (entity == null) {
            return new byte[0];
        }
        if (entity instanceof byte[] rendered) {
            return rendered;
        }
        return json.writeValueAsBytes(entity);
    }
}
