package io.deviceidentity.auth.authz;

import java.util.List;

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

    /** The fields the decision reads; each one missing is a {@code 400 missing_field}. */
    public static final List<String> REQUIRED = List.of("clientid", "username", "action", "topic", "qos", "retain");
    /** The actions a request may ask about. */
    public static final List<String> ACTIONS = List.of(AclRule.PUBLISH, AclRule.SUBSCRIBE);
    /** {@code qos} as EMQX sends it: the level's digit, its index here. */
    public static final List<String> QOS = List.of("0", "1", "2");
    /** {@code retain} as EMQX's template may send it: a boolean's name or digit. */
    public static final List<String> RETAIN_TRUE = List.of("true", "1");
    public static final List<String> RETAIN_FALSE = List.of("false", "0");

    public static AuthzRequest from(ObjectNode body) {
        String clientId = JsonBodies.requiredString(body, "clientid");
        String username = JsonBodies.requiredString(body, "username");
        String action = JsonBodies.requiredString(body, "action");
        if (!ACTIONS.contains(action)) {
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
        int qos = QOS.indexOf(value);
        if (qos < 0) {
            throw InvalidRequestException.badRequest("invalid_field", "field 'qos' must be \"0\", \"1\" or \"2\"");
        }
        return qos;
    }

    private static boolean retain(String value) {
        if (RETAIN_TRUE.contains(value)) {
            return true;
        }
        if (RETAIN_FALSE.contains(value)) {
            return false;
        }
        throw InvalidRequestException.badRequest("invalid_field", "field 'retain' must be \"true\" or \"false\"");
    }
}
