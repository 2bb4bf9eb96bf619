package io.deviceidentity.auth.authz;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.http.JsonBodies;

/**
 * The body of EMQX's HTTP authorization source. EMQX sends every field of its body template as a string, so every
 * field the decision reads is required: {@code clientid}, {@code username} (compared with the registered one; never
 * put into a rule, which is rendered from the registered values),
 * {@code action}, {@code topic}, {@code qos} and {@code retain} (rules may be conditioned on them). A missing or
 * {@code null} one is a {@code 400 missing_field}: guessing a qos or retain flag could allow what a rule denies.
 * {@code peerhost} is optional (logged only) but must be a string when present.
 */
public record AuthzRequest(String clientId, String username, String action, String topic, int qos, boolean retain) {

    public static AuthzRequest from(ObjectNode body) {
        String clientId = JsonBodies.requiredString(body, "clientid");
        String username = JsonBodies.requiredString(body, "username");
        String action = JsonBodies.requiredString(body, "action");
        if (!AclRule.PUBLISH.equals(action) && !AclRule.SUBSCRIBE.equals(action)) {
            throw InvalidRequestException.badRequest("invalid_field", "field 'action' must be publish or subscribe");
        }
        String topic = JsonBodies.requiredString(body, "topic");
        if (topic.isEmpty()) {
            throw InvalidRequestException.badRequest("invalid_field", "field 'topic' must not be empty");
        }
        int qos = qos(JsonBodies.requiredString(body, "qos"));
        boolean retain = retain(JsonBodies.requiredString(body, "retain"));
        JsonBodies.optionalString(body, "peerhost", "");
        return new AuthzRequest(clientId, username, action, topic, qos, retain);
    }

    private static int qos(String value) {
        return switch (value) {
            case "0" -> 0;
            case "1" -> 1;
            case "2" -> 2;
            default -> throw InvalidRequestException.badRequest("invalid_field", "field 'qos' must be \"0\", \"1\" or \"2\"");
        };
    }

    private static boolean retain(String value) {
        return switch (value) {
            case "true", "1" -> true;
            case "false", "0" -> false;
            default -> throw InvalidRequestException.badRequest("invalid_field", "field 'retain' must be \"true\" or \"false\"");
        };
    }
}
