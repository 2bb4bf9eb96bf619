package io.deviceidentity.registration.devices;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.DeserializationFeature;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.credentials.PasswordPolicy;
import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.http.JsonBodies;

/**
 * A validated {@code PUT /v1/devices/{clientId}} body: {@code password} (required), {@code username},
 * {@code superuser} and {@code acl} (optional). Everything that the database would refuse, or that auth-service
 * could not use, is refused here with a 400 before any hashing or writing, so bad input never costs a bcrypt, never
 * writes a row and never surfaces as a 5xx. Messages never echo the password.
 */
public record RegistrationRequest(String password, String username, boolean superuser, List<AclRule> acl) {

    /** Column width of {@code device_credentials.username}. */
    static final int MAX_USERNAME_LENGTH = 256;
    /** Rules per device; EMQX evaluates them in order on every publish and subscribe. */
    static final int MAX_ACL_RULES = 100;

    private static final Set<String> FIELDS = Set.of("password", "username", "superuser", "acl");

    public static RegistrationRequest parse(ObjectMapper json, byte[] body) {
        ObjectNode object = JsonBodies.object(json, body);
        refuseUnknownFields(object);
        String password = JsonBodies.requiredString(object, "password");
        String passwordProblem = passwordProblem(password);
        if (passwordProblem != null) {
            throw InvalidRequestException.badRequest("invalid_password", passwordProblem);
        }
        return new RegistrationRequest(password, username(object), superuser(object), acl(json, object));
    }

    private static void refuseUnknownFields(ObjectNode object) {
        for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!FIELDS.contains(name)) {
                // A misspelt optional field would otherwise be dropped silently and the device registered without it.
                throw InvalidRequestException.badRequest("unknown_field",
                        "unknown field; allowed are password, username, superuser, acl");
            }
        }
    }

    private static String passwordProblem(String password) {
        if (TextRules.hasUnpairedSurrogate(password)) {
            // Not encodable as UTF-8: it would be hashed as '?' and match other passwords.
            return "password must be valid Unicode text";
        }
        return PasswordPolicy.problem(password);
    }

    private static String username(ObjectNode object) {
        String username = JsonBodies.optionalString(object, "username", null);
        if (username == null) {
            return null;
        }
        // Substituted into topic filters (${username}), like the client id, so no separators or wildcards.
        if (username.isEmpty() || username.length() > MAX_USERNAME_LENGTH || !TextRules.isPlainText(username)
                || TextRules.hasTopicSyntax(username)) {
            throw InvalidRequestException.badRequest("invalid_field", "field 'username' must be 1.."
                    + MAX_USERNAME_LENGTH + " characters without control characters, '/', '+' or '#'");
        }
        return username;
    }

    private static boolean superuser(ObjectNode object) {
        JsonNode value = object.get("superuser");
        if (value == null || value.isNull()) {
            return false;
        }
        if (!value.isBoolean()) {
            throw InvalidRequestException.badRequest("invalid_field", "field 'superuser' must be true or false");
        }
        return value.booleanValue();
    }

    private static List<AclRule> acl(ObjectMapper json, ObjectNode object) {
        JsonNode value = object.get("acl");
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray() || value.size() > MAX_ACL_RULES) {
            throw InvalidRequestException.badRequest("invalid_acl",
                    "field 'acl' must be a list of at most " + MAX_ACL_RULES + " rules");
        }
        List<AclRule> rules = new ArrayList<>(value.size());
        for (JsonNode node : value) {
            rules.add(rule(json, node));
        }
        return List.copyOf(rules);
    }

    private static AclRule rule(ObjectMapper json, JsonNode node) {
        AclRule rule;
        try {
            // Strict even though Quarkus' mapper ignores unknown properties: a misspelt "retain" must not vanish.
            rule = node.isObject() ? json.readerFor(AclRule.class)
                    .with(DeserializationFeature.FAIL_ON_UNKNOWN_PROPERTIES)
                    .readValue(node) : null;
        } catch (IOException | IllegalArgumentException malformed) {
            rule = null;
        }
        if (rule == null) {
            throw InvalidRequestException.badRequest("invalid_acl", "each acl rule must be an object with"
                    + " permission, action, topic and optionally qos (list of 0..2) and retain (boolean)");
        }
        String problem = rule.problem();
        if (problem == null && !TextRules.isPlainText(rule.topic())) {
            // jsonb refuses NUL, and control characters in a topic filter are never what was meant.
            problem = "acl topic must not contain control characters";
        }
        if (problem != null) {
            throw InvalidRequestException.badRequest("invalid_acl", problem);
        }
        return rule;
    }

    @Override
    public String toString() {
        return "RegistrationRequest[username=" + username + ", superuser=" + superuser + ", acl=" + acl.size()
                + " rules]";
    }
}
