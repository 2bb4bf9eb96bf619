package io.deviceidentity.auth.authn;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.Observes;
import jakarta.ws.rs.core.HttpHeaders;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.http.ErrorResponses;
import io.quarkus.vertx.http.runtime.RouteConstants;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code /mqtt/authn}, called by EMQX's HTTP authenticator for every CONNECT, served on a plain Vert.x route ahead of
 * Quarkus REST. In a storm nearly every answer is a refusal decided in microseconds, and on a pod of a fraction of a
 * core every microsecond around it is taken from bcrypt: Quarkus REST's handler chain (its routing, serializer lookup
 * and response writer) was about a quarter of the event loop's samples in a profiled storm (docs/overload.md, "The
 * cost of a refusal"). The answers are the same as every other endpoint's: parsed, decided,
 * logged and counted by {@link io.deviceidentity.http.RequestAnswerer}, errors as {@link ErrorResponses} writes them.
 * Described in /q/openapi by {@code META-INF/openapi.yaml}.
 */
@ApplicationScoped
public class AuthnRoute {

    public static final String PATH = "/mqtt/authn";
    /** What the path answers, as a 405's {@code Allow} header and an {@code OPTIONS} answer say. */
    static final String ALLOWED_METHODS = "OPTIONS, POST";

    private final AuthnEndpoint endpoint;
    private final ObjectMapper json;

    public AuthnRoute(AuthnEndpoint endpoint, ObjectMapper json) {
        this.endpoint = endpoint;
        this.json = json;
    }

    void install(@Observes Router router) {
        // After Quarkus's own routes up to its body limit (a declared length over it is a 413 before this runs) and
        // before Quarkus REST's.
        router.route(PATH).order(RouteConstants.ROUTE_ORDER_BEFORE_DEFAULT).handler(this::handle);
    }

    private void handle(RoutingContext context) {
        HttpMethod method = context.request().method();
        if (HttpMethod.POST.equals(method)) {
            VertxRoutes.readBody(context, json,
                    body -> VertxRoutes.answerWhenDecided(context, endpoint.authenticate(body, context), json));
        } else if (HttpMethod.OPTIONS.equals(method)) {
            context.response().putHeader(HttpHeaders.ALLOW, ALLOWED_METHODS).end();
        } else {
            VertxRoutes.answerNow(context, ErrorResponses.methodNotAllowed(ALLOWED_METHODS), json);
        }
    }
}
