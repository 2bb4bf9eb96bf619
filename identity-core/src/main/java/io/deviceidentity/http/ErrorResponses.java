package io.deviceidentity.http;

import jakarta.ws.rs.WebApplicationException;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.logging.Logger;
import org.jboss.resteasy.reactive.server.ServerExceptionMapper;

import io.deviceidentity.overload.BackendFailures;
import io.deviceidentity.overload.ServiceUnavailableException;

/**
 * How both services answer failures: bad input → 4xx, too many attempts → 429, cannot answer in time → 503, each
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
            return new Answer(json(Response.status(503).header("Retry-After", unavailable.retryAfterSeconds()),
                    unavailable.reason().label(), unavailable.getMessage()),
                    RESULT_UNAVAILABLE, unavailable.reason().label());
        }
        if (classified instanceof RateLimitedException limited) {
            return new Answer(json(Response.status(429).header("Retry-After", limited.retryAfterSeconds()),
                    "rate_limited", limited.getMessage()), RESULT_REJECTED, "rate_limited");
        }
        if (classified instanceof InvalidRequestException invalid) {
            return new Answer(json(Response.status(invalid.status()), invalid.reason(), invalid.getMessage()),
                    RESULT_REJECTED, invalid.reason());
        }
        if (classified instanceof WebApplicationException web && web.getResponse().getStatus() < 500) {
            return new Answer(web.getResponse(), RESULT_REJECTED, "http_" + web.getResponse().getStatus());
        }
        LOG.error("unexpected failure while answering a request", failure);
        return new Answer(json(Response.serverError(), "internal_error", "the service failed; see its log"),
                RESULT_ERROR, "internal_error");
    }

    @ServerExceptionMapper({ServiceUnavailableException.class, RateLimitedException.class,
            InvalidRequestException.class})
    public Response mapExpected(RuntimeException failure) {
        return answerFor(failure).response();
    }

    @ServerExceptionMapper
    public Response mapUnexpected(Exception failure) {
        if (failure instanceof WebApplicationException web) {
            return web.getResponse();
        }
        return answerFor(failure).response();
    }

    private static Response json(Response.ResponseBuilder builder, String reason, String message) {
        return builder.type(MediaType.APPLICATION_JSON_TYPE).entity(new ErrorBody(reason, message)).build();
    }
}
