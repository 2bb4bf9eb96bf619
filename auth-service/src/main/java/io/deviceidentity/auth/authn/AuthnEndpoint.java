package io.deviceidentity.auth.authn;

import static jakarta.ws.rs.core.HttpHeaders.CONTENT_TYPE;

import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.ws.rs.core.MediaType;
import jakarta.ws.rs.core.Response;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.auth.acl.DeviceAcl;
import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.http.Answer;
import io.deviceidentity.http.JsonBodies;
import io.deviceidentity.http.RequestAnswerer;
import io.deviceidentity.metrics.MetricNames;
import io.vertx.ext.web.RoutingContext;

/**
 * The answer to one {@code POST /mqtt/authn} body, which EMQX's HTTP authenticator sends for every CONNECT
 * ({@link AuthnRoute} receives it).
 *
 * <p>The body is parsed on the event loop (it is at most 16 KiB); the database read runs on the database lane and the
 * bcrypt check on the bcrypt lane, both of which refuse at once when full, so a refusal is written within
 * moments of the request's arrival. The answer is decided when the decision is ready or when the request's deadline
 * passes, whichever comes first.
 */
@ApplicationScoped
public class AuthnEndpoint {

    private final Authenticator authenticator;
    private final RequestAnswerer answerer;
    private final ObjectMapper json;
    private final SessionLife sessionLife;
    /**
     * Bodies of the answers that carry no device (deny, ignore), by result (and reason, for a budget's denial): in a
     * flood of invented ids or a spray of guesses nearly every answer is one, so they are serialized once rather than
     * per answer.
     */
    private final Map<String, byte[]> plainResults = new ConcurrentHashMap<>();

    public AuthnEndpoint(Authenticator authenticator, RequestAnswerer answerer, ObjectMapper json,
            SessionLife sessionLife) {
        this.authenticator = authenticator;
        this.answerer = answerer;
        this.json = json;
        this.sessionLife = sessionLife;
    }

    /** Called on the event loop; never blocks. */
    public CompletionStage<Response> authenticate(byte[] body, RoutingContext context) {
        return answerer.answer("authn", MetricNames.AUTHN_OUTCOMES, context,
                () -> AuthnRequest.from(JsonBodies.emqxObject(json, body, context.request().getHeader(CONTENT_TYPE))),
                AuthnRequest::clientId,
                (request, deadline) -> authenticator.authenticate(request, deadline, context.request().connection())
                        .thenApply(this::answer));
    }

    /**
     * An allowed device's answer carries its rules rendered from its registered values ({@link DeviceAcl}), so EMQX
     * has no placeholder left to fill with the connecting client's username. A device whose stored rules cannot be
     * rendered safely is denied ({@code unsafe_acl}): allowing it without them, or with some of them, could widen
     * what it may do. A superuser's rules are never used (EMQX skips authorization for it), so they are not read.
     */
    private Answer answer(AuthnOutcome outcome) {
        DeviceCredential device = outcome.device();
        if (device == null) {
            byte[] body = outcome.overBudget()
                    ? plainResults.computeIfAbsent(outcome.result() + " " + outcome.reason(),
                            key -> render(AuthnAnswer.result(outcome.result(), outcome.reason())))
                    : plainResults.computeIfAbsent(outcome.result(), result -> render(AuthnAnswer.result(result)));
            return new Answer(Response.ok(body, MediaType.APPLICATION_JSON_TYPE).build(), outcome.result(),
                    outcome.reason());
        }
        if (device.superuser()) {
            return answer(new AuthnAnswer(outcome.result(), true, null).withExpireAt(sessionLife.expireAt()),
                    outcome.result(), outcome.reason());
        }
        List<AclRule> rules = DeviceAcl.renderedFor(device, "authn");
        if (rules == null) {
            return answer(AuthnAnswer.result(AuthnOutcome.DENY), AuthnOutcome.DENY, DeviceAcl.UNSAFE_ACL);
        }
        return answer(new AuthnAnswer(outcome.result(), false, rules).withExpireAt(sessionLife.expireAt()),
                outcome.result(), outcome.reason());
    }

    /** {@code {"result":"deny"}} and the like, the same for every device: rendered once (see the field). */
    private byte[] render(AuthnAnswer answer) {
        try {
            return json.writeValueAsBytes(answer);
        } catch (JsonProcessingException e) {
            throw new IllegalStateException("an answer without rules could not be written as JSON", e);
        }
    }

    private static Answer answer(AuthnAnswer body, String result, String reason) {
        return new Answer(Response.ok(body, MediaType.APPLICATION_JSON_TYPE).build(), result, reason);
    }
}
