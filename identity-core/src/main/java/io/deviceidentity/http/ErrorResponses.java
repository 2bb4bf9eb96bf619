package io.deviceidentity.http;

import java.util.Set;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.deviceidentity.overload.BackendFailures;
import io.deviceidentity.overload.ServiceUnavailableException;
import io.vertx.core.http.HttpServerRequest;

/**
 * How both services answer failures: bad input → 4xx, cannot answer in time → 503, each
 * with {@code Retry-After} where waiting helps and a JSON {@link ErrorBody}; a defect → 500 with the stack in the
 * log and nothing of it in the answer. The mappers catch what escapes an endpoint; endpoints that log and count
 * their own outcomes call {@link #answerFor(Throwable)} directly.
 */
public class ErrorResponses {

    private static final Logger LOG = Logger.getLogger(ErrorResponses.class);

    public static final String RESULT_UNAVAILABLE = "unavailable";
    public static final String RESULT_REJECTED = "rejected";
    public static final String RESULT_ERROR = "error";

    /** The answer for a failure, classified; a failure nobody expected is logged with its stack here. */
    public static Answer answerFor(Throwable failure) {
        RuntimeException classified = BackendFailures.classify(failure);
        if (classified instanceof ServiceUnavailableException unavailable) {
            String reason = unavailable.reason().label();
            return new Answer(Response.status(503).header("Retry-After", unavailable.retryAfterSeconds())
                    .type(MediaType.APPLICATION_JSON_TYPE).entity(RefusalBodies.of(reason, unavailable.getMessage()))
                    .build(), RESULT_UNAVAILABLE, reason);
        }
        if (classified instanceof InvalidRequestException invalid) {
            return new Answer(json(Response.status(invalid.status()), invalid.reason(), invalid.getMessage()),
                    RESULT_REJECTED, invalid.reason());
        }
        if (classified instanceof WebApplicationException web && web.getResponse().getStatus() < 500) {
            Response refused = web.getResponse();
            return new Answer(withJsonBody(refused), RESULT_REJECTED, "http_" + refused.getStatus());
        }
        LOG.error("unexpected failure while answering a request", failure);
        return new Answer(json(Response.serverError(), "internal_error", "the service failed; see its log"),
                RESULT_ERROR, "internal_error");
    }

    @ServerExceptionMapper({ServiceUnavailableException.class, InvalidRequestException.class})
    public Response mapExpected(RuntimeException failure) {
        return answerFor(failure).response();
    }

    @ServerExceptionMapper
    public Response mapUnexpected(Exception failure, HttpServerRequest request) {
        if (request.response().ended()) {
            // The framework has answered already: Quarkus REST's body reader (resteasy-reactive VertxInputStream)
            // writes 413 itself when a chunked body outgrows quarkus.http.limits.max-body-size, then throws
            // "Request too large". Oversized input is hostile, not a defect: no ERROR, and no second answer (which
            // would fail with "Response has already been written" and log another one).
            LOG.debugf("request to %s refused by the framework with %d: %s", request.path(),
                    request.response().getStatusCode(), failure);
            return Response.status(request.response().getStatusCode()).build();
        }
        if (failure instanceof WebApplicationException web) {
            Response refused = withAllow(web.getResponse(), request.path());
            if (!refused.hasEntity()) {
                // Said of the endpoint asked, not of the API in general: the import reads and answers x-ndjson.
                String method = request.method().name();
                String path = request.path();
                switch (refused.getStatus()) {
                    case 406 -> {
                        return json(Response.fromResponse(refused), "not_acceptable", notAcceptable(method, path));
                    }
                    case 415 -> {
                        return json(Response.fromResponse(refused), "unsupported_media_type",
                                unsupportedMediaType(method, path));
                    }
                    case 405 -> {
                        String allowed = refused.getHeaderString(HttpHeaders.ALLOW);
                        if (allowed != null) {
                            return json(Response.fromResponse(refused), "method_not_allowed",
                                    "this endpoint answers " + allowed + ", not " + method);
                        }
                    }
                    default -> {
                    }
                }
            }
            return withJsonBody(refused);
        }
        return answerFor(failure).response();
    }

    /** A body over the size limit, refused while it is read. */
    public static Response tooLarge() {
        return withJsonBody(Response.status(413).build());
    }

    /** A method {@code path} does not answer: 405 naming the ones it does ({@code allowed}, the Allow header). */
    public static Response methodNotAllowed(String allowed) {
        return withJsonBody(Response.status(405).header(HttpHeaders.ALLOW, allowed).build());
    }

    /** A 405 names the methods the path answers ({@link ResourceRoutes}), as its message promises. */
    static Response withAllow(Response response, String path) {
        if (response.getStatus() != 405 || response.getHeaderString(HttpHeaders.ALLOW) != null) {
            return response;
        }
        String allowed = ResourceRoutes.allowedMethods(path);
        return allowed == null ? response : Response.fromResponse(response).header(HttpHeaders.ALLOW, allowed).build();
    }

    /** A 415's message names what this endpoint reads (the device import: application/x-ndjson). */
    static String unsupportedMediaType(String method, String path) {
        Set<String> types = ResourceRoutes.consumedTypes(method, path);
        types.remove(MediaType.WILDCARD);
        return "the body must be " + (types.isEmpty() ? MediaType.APPLICATION_JSON : String.join(" or ", types));
    }

    /** A 406's message names what this endpoint answers with (the device import: application/x-ndjson). */
    static String notAcceptable(String method, String path) {
        Set<String> types = ResourceRoutes.producedTypes(method, path);
        types.remove(MediaType.WILDCARD);
        return "this endpoint answers " + (types.isEmpty() ? MediaType.APPLICATION_JSON : String.join(" or ", types))
                + ", which the request's Accept header does not allow";
    }

    /**
     * The framework's own refusals (no such endpoint, a method the endpoint does not answer, ...) come without a
     * body; "errors are JSON" holds for them too. Headers such as {@code Allow} are kept.
     */
    static Response withJsonBody(Response response) {
        if (response.hasEntity() || response.getStatus() < 400) {
            return response;
        }
        int status = response.getStatus();
        String reason;
        String message;
        switch (status) {
            case 404 -> {
                reason = "not_found";
                message = "no such endpoint";
            }
            case 405 -> {
                reason = "method_not_allowed";
                message = "this endpoint does not answer that method (see the Allow header)";
            }
            case 406 -> {
                reason = "not_acceptable";
                message = "the answer's type is not one the request's Accept header allows";
            }
            case 413 -> {
                reason = "payload_too_large";
                message = "the body is over the service's limit (quarkus.http.limits.max-body-size)";
            }
            case 415 -> {
                reason = "unsupported_media_type";
                message = "the body's content type is not one this endpoint reads";
            }
            default -> {
                reason = "http_" + status;
                message = "the request was refused";
            }
        }
        return json(Response.fromResponse(response), reason, message);
    }

    private static Response json(Response.ResponseBuilder builder, String reason, String message) {
        return builder.type(MediaType.APPLICATION_JSON_TYPE).entity(new ErrorBody(reason, message)).build();
    }
}
