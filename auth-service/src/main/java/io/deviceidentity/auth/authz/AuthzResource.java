package io.deviceidentity.auth.authz;

import java.sql.SQLException;
import java.util.Optional;

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
import io.deviceidentity.auth.credentials.CredentialReader;
import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.http.Answer;
import io.deviceidentity.http.ErrorResponses;
import io.deviceidentity.http.JsonBodies;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.metrics.Outcomes;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.RequestDeadlines;
import io.smallrye.common.annotation.Blocking;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code POST /mqtt/authz}, for brokers configured with an HTTP authorization source. Brokers that take the
 * {@code acl} from the authn answer never call it. No bcrypt: one indexed read and the device's rules.
 */
@Path("/mqtt/authz")
public class AuthzResource {

    private final CredentialReader credentials;
    private final RequestDeadlines deadlines;
    private final Outcomes outcomes;
    private final ObjectMapper json;

    public AuthzResource(CredentialReader credentials, RequestDeadlines deadlines, Outcomes outcomes,
            ObjectMapper json) {
        this.credentials = credentials;
        this.deadlines = deadlines;
        this.outcomes = outcomes;
        this.json = json;
    }

    @POST
    @Blocking
    @Consumes(MediaType.WILDCARD)
    @Produces(MediaType.APPLICATION_JSON)
    public Response authorize(byte[] body, @Context RoutingContext context) {
        Deadline deadline = deadlines.of(context);
        String clientId = null;
        Answer answer;
        try {
            AuthzRequest request = AuthzRequest.from(JsonBodies.object(json, body));
            clientId = request.clientId();
            answer = decide(request, deadline);
        } catch (SQLException | RuntimeException failure) {
            answer = ErrorResponses.answerFor(failure);
        }
        outcomes.record(MetricNames.AUTHZ_OUTCOMES, "authz", clientId, deadline, answer);
        return answer.response();
    }

    private Answer decide(AuthzRequest request, Deadline deadline) throws SQLException {
        deadline.check();
        if (!ClientIdPolicy.isValid(request.clientId())) {
            return result("deny", "unknown_device");
        }
        Optional<DeviceCredential> found = credentials.find(request.clientId());
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
        boolean allowed = TopicRules.allows(DeviceAcl.rulesFor(device), request.clientId(), request.username(),
                request.action(), request.topic(), request.qos(), request.retain());
        return allowed ? result("allow", "acl_match") : result("deny", "no_match");
    }

    private static Answer result(String result, String reason) {
        return new Answer(Response.ok(AuthnAnswer.result(result), MediaType.APPLICATION_JSON_TYPE).build(), result,
                reason);
    }
}
