package io.deviceidentity.auth.authn;

import java.util.concurrent.CompletableFuture;
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
import io.deviceidentity.http.ErrorResponses;
import io.deviceidentity.http.JsonBodies;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.metrics.Outcomes;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.RequestDeadlines;
import io.smallrye.common.annotation.NonBlocking;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code POST /mqtt/authn}, called by EMQX's HTTP authenticator for every CONNECT.
 *
 * <p>The body is parsed on the event loop (it is at most 16 KiB); the database read runs on a worker thread and the
 * bcrypt check on the bounded bcrypt executor, so no thread waits on a hash. The answer is written when the
 * decision is ready or when the request's deadline passes, whichever comes first.
 */
@Path("/mqtt/authn")
public class AuthnResource {

    private final Authenticator authenticator;
    private final RequestDeadlines deadlines;
    private final Outcomes outcomes;
    private final ObjectMapper json;

    public AuthnResource(Authenticator authenticator, RequestDeadlines deadlines, Outcomes outcomes,
            ObjectMapper json) {
        this.authenticator = authenticator;
        this.deadlines = deadlines;
        this.outcomes = outcomes;
        this.json = json;
    }

    @POST
    @NonBlocking
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public CompletionStage<Response> authenticate(byte[] body, @Context RoutingContext context) {
        Deadline deadline = deadlines.of(context);
        AuthnRequest request = null;
        CompletionStage<AuthnOutcome> decision;
        try {
            AuthnRequest parsed = AuthnRequest.from(JsonBodies.object(json, body));
            request = parsed;
            decision = deadlines.blocking(deadline, () -> authenticator.authenticate(parsed, deadline));
        } catch (RuntimeException failure) {
            decision = CompletableFuture.failedFuture(failure);
        }
        String clientId = request == null ? null : request.clientId();
        return decision.handle((outcome, failure) -> {
            Answer answer = failure == null ? answer(outcome) : ErrorResponses.answerFor(failure);
            outcomes.record(MetricNames.AUTHN_OUTCOMES, "authn", clientId, deadline, answer);
            return answer.response();
        });
    }

    private static Answer answer(AuthnOutcome outcome) {
        AuthnAnswer body = outcome.device() == null
                ? AuthnAnswer.result(outcome.result())
                : outcome.device().superuser()
                        ? new AuthnAnswer(outcome.result(), true, null)
                        : new AuthnAnswer(outcome.result(), false, DeviceAcl.rulesFor(outcome.device()));
        return new Answer(Response.ok(body, MediaType.APPLICATION_JSON_TYPE).build(), outcome.result(),
                outcome.reason());
    }
}
