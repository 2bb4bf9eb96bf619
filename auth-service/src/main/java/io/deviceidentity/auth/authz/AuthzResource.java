package io.deviceidentity.auth.authz;

import static jakarta.ws.rs.core.HttpHeaders.CONTENT_TYPE;

import java.util.List;
import java.util.Optional;
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
import io.deviceidentity.auth.acl.TopicRules;
import io.deviceidentity.auth.authn.AuthnAnswer;
import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.credentials.CredentialFinder;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.http.Answer;
import io.deviceidentity.http.JsonBodies;
import io.deviceidentity.http.RequestAnswerer;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.overload.DatabaseWork;
import io.deviceidentity.overload.Lane;
import io.smallrye.common.annotation.NonBlocking;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code POST /mqtt/authz}, for brokers configured with an HTTP authorization source. Brokers that take the
 * {@code acl} from the authn answer never call it. No bcrypt: one indexed read and the device's rules, rendered from
 * its registered values exactly as the authn answer carries them ({@link DeviceAcl}); the request's {@code username}
 * is only compared with the registered one, never put into a filter.
 */
@Path("/mqtt/authz")
public class AuthzResource {

    private final CredentialFinder credentials;
    private final Lane database;
    private final RequestAnswerer answerer;
    private final ObjectMapper json;

    public AuthzResource(CredentialFinder credentials, @DatabaseWork Lane database, RequestAnswerer answerer,
            ObjectMapper json) {
        this.credentials = credentials;
        this.database = database;
        this.answerer = answerer;
        this.json = json;
    }

    @POST
    @NonBlocking
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public CompletionStage<Response> authorize(byte[] body, @Context RoutingContext context) {
        return answerer.answer("authz", MetricNames.AUTHZ_OUTCOMES, context,
                () -> AuthzRequest.from(JsonBodies.emqxObject(json, body, context.request().getHeader(CONTENT_TYPE))),
                AuthzRequest::clientId,
                (request, deadline) -> ClientIdPolicy.isValid(request.clientId())
                        ? database.run(deadline, () -> credentials.find(request.clientId(), false))
                                .thenApply(found -> decide(request, found))
                        : CompletableFuture.completedFuture(result("deny", "unknown_device")));
    }

    private static Answer decide(AuthzRequest request, Optional<DeviceCredential> found) {
        if (found.isEmpty()) {
            return result("deny", "unknown_device");
        }
        DeviceCredential device = found.get();
        if (!device.isActive()) {
            return result("deny", "revoked");
        }
        if (device.superuser()) {
            return result("allow", "superuser");
        }
        if (device.username() != null && !device.username().equals(request.username())) {
            // authn denies this username; a connection that holds it was let in by something else in the chain.
            return result("deny", "bad_username");
        }
        List<AclRule> rules = DeviceAcl.renderedFor(device, "authz");
        if (rules == null) {
            return result("deny", DeviceAcl.UNSAFE_ACL);
        }
        boolean allowed = TopicRules.allows(rules, request.action(), request.topic(), request.qos(), request.retain());
        return allowed ? result("allow", "acl_match") : result("deny", "no_match");
    }

    private static Answer result(String result, String reason) {
        return new Answer(Response.ok(AuthnAnswer.result(result), MediaType.APPLICATION_JSON_TYPE).build(), result,
                reason);
    }
}
