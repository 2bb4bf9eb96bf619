package io.deviceidentity.registration.tokens;

import java.lang.reflect.Method;

import jakarta.ws.rs.Path;
import jakarta.ws.rs.container.ContainerRequestContext;
import jakarta.ws.rs.container.ResourceInfo;
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
 * Refuses every API call without an accepted bearer token with {@code 401}, and one whose token lacks the method's
 * {@link RequiresScope} with {@code 403}, both before the body is looked at, so an unauthenticated caller can neither
 * write nor learn whether a device exists. An accepted caller is put on the request ({@link Caller}) for the
 * resources' own scope checks and for {@link WriteAudit}. Health and metrics endpoints ({@code /q/*}) are not JAX-RS
 * resources and stay open for probes and scrapers.
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
    public Response authenticate(ContainerRequestContext request, RoutingContext context, ResourceInfo resource) {
        Caller caller = tokens.identify(request.getHeaderString(HttpHeaders.AUTHORIZATION), Caller.addressOf(context));
        if (caller == null) {
            // The client id in the path is not logged: the caller is unknown and the id unchecked.
            return refused(request, context, Response.status(Response.Status.UNAUTHORIZED)
                    .header(HttpHeaders.WWW_AUTHENTICATE, "Bearer"), "unauthorized",
                    "a valid 'Authorization: Bearer <token>' header is required");
        }
        context.put(Caller.KEY, caller);
        Scope needed = requiredScope(resource);
        if (needed == null) {
            return refused(request, context, Response.status(Response.Status.FORBIDDEN), Caller.FORBIDDEN,
                    "this operation is granted to no token");
        }
        if (!caller.has(needed)) {
            return refused(request, context, Response.status(Response.Status.FORBIDDEN), Caller.FORBIDDEN,
                    caller.forbidden(needed, describe(request, resource)).getMessage());
        }
        return null;
    }

    private Response refused(ContainerRequestContext request, RoutingContext context,
            Response.ResponseBuilder builder, String reason, String message) {
        Response refused = builder.type(MediaType.APPLICATION_JSON_TYPE).entity(new ErrorBody(reason, message)).build();
        outcomes.record(MetricNames.REGISTRATION_OUTCOMES, operation(request), null, deadlines.of(context),
                refused.getStatus(), ErrorResponses.RESULT_REJECTED, reason);
        return refused;
    }

    /** The scope the matched resource method declares; {@code null} when it declares none (refused to all). */
    static Scope requiredScope(ResourceInfo resource) {
        Method method = resource == null ? null : resource.getResourceMethod();
        RequiresScope required = method == null ? null : method.getAnnotation(RequiresScope.class);
        return required == null ? null : required.value();
    }

    /** E.g. {@code PUT /v1/devices/{clientId}}: the template, not the caller's path, which could carry anything. */
    private static String describe(ContainerRequestContext request, ResourceInfo resource) {
        Path path = resource.getResourceClass().getAnnotation(Path.class);
        return request.getMethod() + " " + (path == null ? "this resource" : path.value());
    }

    private static String operation(ContainerRequestContext request) {
        return "registration." + request.getMethod().toLowerCase(java.util.Locale.ROOT);
    }
}
