package io.deviceidentity.registration.tokens;

import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.core.HttpHeaders;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import org.jboss.resteasy.reactive.server.ServerRequestFilter;

import io.deviceidentity.http.ErrorBody;
import io.deviceidentity.http.ErrorResponses;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.metrics.Outcomes;
import io.deviceidentity.overload.RequestDeadlines;
import io.vertx.ext.web.RoutingContext;

/**
 * Refuses every API call without an accepted bearer token with {@code 401} before its body is looked at, so an
 * unauthenticated caller can neither write nor learn whether a device exists. Health and metrics endpoints
 * ({@code /q/*}) are not JAX-RS resources and stay open for probes and scrapers.
 */
public class BearerTokenFilter {

    private final BearerTokens tokens;
    private final RequestDeadlines deadlines;
    private final Outcomes outcomes;

    public BearerTokenFilter(BearerTokens tokens, RequestDeadlines deadlines, Outcomes outcomes) {
        this.tokens = tokens;
        this.deadlines = deadlines;
        this.outcomes = outcomes;
    }

    @ServerRequestFilter
    public Response authenticate(ContainerRequestContext request, RoutingContext context) {
        if (tokens.accepts(request.getHeaderString(HttpHeaders.AUTHORIZATION))) {
            return null;
        }
        Response refused = Response.status(Response.Status.UNAUTHORIZED)
                .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer")
                .type(MediaType.APPLICATION_JSON_TYPE)
                .entity(new ErrorBody("unauthorized", "a valid 'Authorization: Bearer <token>' header is required"))
                .build();
        // The client id in the path is not logged: the caller is unknown and the id unchecked.
        outcomes.record(MetricNames.REGISTRATION_OUTCOMES, operation(request), null, deadlines.of(context), 401,
                ErrorResponses.RESULT_REJECTED, "unauthorized");
        return refused;
    }

    private static String operation(ContainerRequestContext request) {
        return "registration." + request.getMethod().toLowerCase(java.util.Locale.ROOT);
    }
}
