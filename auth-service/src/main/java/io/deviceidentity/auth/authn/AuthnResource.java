package io.deviceidentity.auth.authn;

import static jakarta.ws.rs.core.HttpHeaders.CONTENT_TYPE;

import java.util.concurrent.CompletionStage;

import jakarta.ws.rs.Consumes;
import jakarta.ws.rs.POST;
import jakarta.ws.rs.Path;
import jakarta.ws.rs.Produces;
import jakarta.ws.rs.core.Context;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.auth.acl.DeviceAcl;
import io.deviceidentity.http.Answer;
import io.deviceidentity.http.JsonBodies;
import io.deviceidentity.http.RequestAnswerer;
import io.deviceidentity.metrics.MetricNames;
import io.smallrye.common.annotation.NonBlocking;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code POST /mqtt/authn}, called by EMQX's HTTP authenticator for every CONNECT.
 *
 * <p>The body is parsed on the event loop (it is at most 16 KiB); the database read runs on the database lane and the
 * bcrypt check on the bcrypt executor, both of which refuse at once when full, so a refusal is written within
 * moments of the request's arrival. The answer is written when the decision is ready or when the request's deadline
 * passes, whichever comes first.
 */
@Path("/mqtt/authn")
public class AuthnResource {

    private final Authenticator authenticator;
    private final RequestAnswerer answerer;
    private final ObjectMapper json;
    private final SessionLife sessionLife;

    public AuthnResource(Authenticator authenticator, RequestAnswerer answerer, ObjectMapper json,
            SessionLife sessionLife) {
        this.authenticator = authenticator;
        this.answerer = answerer;
        this.json = json;
        this.sessionLife = sessionLife;
    }

    @POST
    @NonBlocking
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public CompletionStage<Response> authenticate(byte[] body, @Context RoutingContext context) {
        return answerer.answer("authn", MetricNames.AUTHN_OUTCOMES, context,
                () -> AuthnRequest.from(JsonBodies.emqxObject(json, body, context.request().getHeader(CONTENT_TYPE))),
                AuthnRequest::clientId,
                (request, deadline) -> authenticator.authenticate(request, deadline, context.request().connection())
                        .thenApply(this::answer));
    }

    private Answer answer(AuthnOutcome outcome) {
        AuthnAnswer body = outcome.device() == null
                ? AuthnAnswer.result(outcome.result())
                : outcome.device().superuser()
                        ? new AuthnAnswer(outcome.result(), true, null)
                        : new AuthnAnswer(outcome.result(), false, DeviceAcl.rulesFor(outcome.device()));
        if (outcome.device() != null) {
            body = body.withExpireAt(sessionLife.expireAt());
        }
        return new Answer(Response.ok(body, MediaType.APPLICATION_JSON_TYPE).build(), outcome.result(),
                outcome.reason());
    }
}
