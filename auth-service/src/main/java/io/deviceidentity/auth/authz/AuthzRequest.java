package io.deviceidentity.auth.authz;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.http.JsonBodies;

/** The body of EMQX's HTTP authorization source; every value is a string, as EMQX renders its placeholders. */
public record AuthzRequest(String clientId, String username, String action, String topic, int qos, boolean retain) {

    public static AuthzRequest from(ObjectNode body) {
        String action = JsonBodies.requiredString(body, "action");
        if (!AclRule.PUBLISH.equals(action) && !AclRule.SUBSCRIBE.equals(action)) {
            throw InvalidRequestException.badRequest("invalid_field", "field 'action' must be publish or subscribe");
        }
        String topic = JsonBodies.requiredString(body, "topic");
        if (topic.isEmpty()) {
            throw InvalidRequestException.badRequest("invalid_field", "field 'topic' must not be empty");
        }
        return new AuthzRequest(
                JsonBodies.requiredString(body, "clientid"),
                JsonBodies.optionalString(body, "username", ""),
                action,
                topic,
                qos(JsonBodies.optionalString(body, "qos", "0")),
                retain(JsonBodies.optionalString(body, "retain", "false")));
    }

    private static int qos(String value) {
        return switch (value) {
            case "0", "" -> 0;
            case "1" -> 1;
            case "2" -> 2;
            default -> throw InvalidRequestException.badRequest("invalid_field", "field 'qos' must be \"0\", \"1\" or \"2\"");
        };
    }

    private static boolean retain(String value) {
        return switch (value) {
            case "true", "1" -> true;
            case "false", "0", "" -> false;
            default -> throw InvalidRequestException.badRequest("invalid_field", "field 'retain' must be \"true\" or \"false\"");
        };
    }
}
