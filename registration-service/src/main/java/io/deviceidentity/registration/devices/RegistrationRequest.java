package io.deviceidentity.registration.devices;

import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Set;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deviceidentity.credentials.AclPlaceholders;
import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.credentials.PasswordPolicy;
import io.deviceidentity.http.InvalidRequestException;
import io.deviceidentity.http.JsonBodies;
import io.deviceidentity.registration.passwords.BcryptHashFormat;

/**
 * A validated {@code PUT /v1/devices/{clientId}} body: the credential, either {@code password} (hashed here) or
 * {@code password_hash} (a bcrypt hash made elsewhere, stored as it is: the migration path), exactly one of them;
 * and {@code username}, {@code superuser} and {@code acl} (optional). Everything that the database would refuse, or
 * that auth-service could not use, is refused here with a 400 before any hashing or writing, so bad input never
 * costs a bcrypt, never writes a row and never surfaces as a 5xx. Messages never echo the password or the hash.
 *
 * <p>Exactly one of {@code password} and {@code passwordHash} is non-null.
 */
public record RegistrationRequest(String password, String passwordHash, String username, boolean superuser,
        List<AclRule> acl) {

    /** Column width of {@code device_credentials.username}. */
    public static final int MAX_USERNAME_LENGTH = 256;
    /** Rules per device; EMQX evaluates them in order on every publish and subscribe. */
    public static final int MAX_ACL_RULES = 100;

    static final String PASSWORD = "password";
    static final String PASSWORD_HASH = "password_hash";
    private static final Set<String> FIELDS = Set.of(PASSWORD, PASSWORD_HASH, "username", "superuser", "acl");
    private static final String ALLOWED = "password or password_hash, username, superuser, acl";
    private static final Set<String> RULE_FIELDS = Set.of("permission", "action", "topic", "qos", "retain");
    /** Longest caller-chosen field name quoted in a message. */
    private static final int MAX_SHOWN_NAME = 64;

    /** {@code clientId} is the device's (valid) client id: rules are checked against it and the username. */
    public static RegistrationRequest parse(ObjectMapper json, String clientId, byte[] body) {
        ObjectNode object = JsonBodies.object(json, body);
        refuseUnknownFields(object, FIELDS, ALLOWED);
        boolean hasPassword = present(object, PASSWORD);
        boolean hasHash = present(object, PASSWORD_HASH);
        if (hasPassword && hasHash) {
            // Which one should win is anybody's guess: a caller that sends both has a bug worth hearing about.
            throw InvalidRequestException.badRequest("conflicting_fields",
                    "fields 'password' and 'password_hash' exclude each other; give one of them");
        }
        if (hasHash) {
            return withHash(object, clientId);
        }
        if (!hasPassword) {
            throw InvalidRequestException.badRequest("missing_field",
                    "field 'password' (or 'password_hash', a bcrypt hash) is required");
        }
        String password = JsonBodies.requiredString(object, PASSWORD);
        String passwordProblem = PasswordPolicy.problem(password);
        if (passwordProblem != null) {
            throw InvalidRequestException.badRequest("invalid_password", passwordProblem);
        }
        return rendered(new RegistrationRequest(password, null, username(object), superuser(object), acl(object)),
                clientId);
    }

    /**
     * The device part of one import line ({@code client_id} has been taken out by the importer): the same fields
     * as PUT, except that the credential must be {@code password_hash}. A plain password is refused: hashing it
     * would put one bcrypt per line on the import, and the import is for hashes that exist already.
     */
    public static RegistrationRequest parseImported(ObjectNode object, String clientId, Set<String> fields,
            String allowed) {
        if (object.has(PASSWORD)) {
            throw InvalidRequestException.badRequest("unknown_field",
                    "field 'password' is not imported: an import line carries 'password_hash' (register a device"
                            + " with a plain password by PUT)");
        }
        refuseUnknownFields(object, fields, allowed);
        if (!present(object, PASSWORD_HASH)) {
            throw InvalidRequestException.badRequest("missing_field", "field 'password_hash' is required");
        }
        return withHash(object, clientId);
    }

    /**
     * The device part of an import line whose hash is of a legacy scheme: the same fields and rules as
     * {@link #parseImported}, with the hash already converted and checked by the importer into its stored form.
     */
    public static RegistrationRequest parseImportedLegacy(ObjectNode object, String clientId, Set<String> fields,
            String allowed, String storedHash) {
        refuseUnknownFields(object, fields, allowed);
        return rendered(new RegistrationRequest(null, storedHash, username(object), superuser(object), acl(object)),
                clientId);
    }

    private static RegistrationRequest withHash(ObjectNode object, String clientId) {
        String hash = JsonBodies.requiredString(object, PASSWORD_HASH);
        String hashProblem = BcryptHashFormat.problem(PASSWORD_HASH, hash);
        if (hashProblem != null) {
            throw InvalidRequestException.badRequest("invalid_password_hash", hashProblem);
        }
        return rendered(new RegistrationRequest(null, hash, username(object), superuser(object), acl(object)),
                clientId);
    }

    /**
     * The request, if auth-service can render its rules with the registered client id and username
     * ({@link AclPlaceholders}): e.g. {@code ${username}} for a device without a username would otherwise be left
     * for the broker to fill with whatever username a client connects with. Checked for superusers too: the rules
     * are stored with the device, and the same rules must mean the same thing whatever the flag.
     */
    private static RegistrationRequest rendered(RegistrationRequest request, String clientId) {
        AclPlaceholders.Rendered rendered = AclPlaceholders.render(request.acl(), clientId, request.username());
        if (!rendered.usable()) {
            throw invalidAcl("acl[" + rendered.ruleIndex() + "]." + rendered.field(), rendered.problem());
        }
        return request;
    }

    private static boolean present(ObjectNode object, String field) {
        JsonNode value = object.get(field);
        return value != null && !value.isNull();
    }

    private static void refuseUnknownFields(ObjectNode object, Set<String> fields, String allowed) {
        for (Iterator<String> names = object.fieldNames(); names.hasNext(); ) {
            String name = names.next();
            if (!fields.contains(name)) {
                // A misspelt optional field would otherwise be dropped silently and the device registered without it.
                throw InvalidRequestException.badRequest("unknown_field",
                        "unknown field '" + shown(name) + "'; allowed are " + allowed);
            }
        }
    }

    private static String username(ObjectNode object) {
        String username = JsonBodies.optionalString(object, "username", null);
        if (username == null) {
            return null;
        }
        // Substituted into topic filters (${username}), like the client id, so no separators or wildcards; a '$'
        // is refused only where a rule uses ${username} (AclPlaceholders), not in every username.
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

    private static List<AclRule> acl(ObjectNode object) {
        JsonNode value = object.get("acl");
        if (value == null || value.isNull()) {
            return List.of();
        }
        if (!value.isArray() || value.size() > MAX_ACL_RULES) {
            throw InvalidRequestException.badRequest("invalid_acl",
                    "field 'acl' must be a list of at most " + MAX_ACL_RULES + " rules");
        }
        List<AclRule> rules = new ArrayList<>(value.size());
        for (int i = 0; i < value.size(); i++) {
            rules.add(rule(value.get(i), "acl[" + i + "]"));
        }
        return List.copyOf(rules);
    }

    /**
     * One rule, read field by field rather than by data binding, so that each refusal names the field it is about
     * ({@code acl[2].topic}). Unknown fields are refused: a misspelt "retain" must not vanish.
     */
    private static AclRule rule(JsonNode node, String name) {
        if (!(node instanceof ObjectNode rule)) {
            throw invalidAcl(name, "must be an object with permission, action, topic and optionally qos and retain");
        }
        for (Iterator<String> names = rule.fieldNames(); names.hasNext(); ) {
            String field = names.next();
            if (!RULE_FIELDS.contains(field)) {
                throw invalidAcl(name + "." + shown(field),
                        "is not a rule field; allowed are permission, action, topic, qos, retain");
            }
        }
        AclRule parsed = new AclRule(ruleString(rule, name, "permission"), ruleString(rule, name, "action"),
                ruleString(rule, name, "topic"), qos(rule.get("qos"), name + ".qos"),
                retain(rule.get("retain"), name + ".retain"));
        AclRule.Problem problem = parsed.problem();
        if (problem != null) {
            throw invalidAcl(name + "." + problem.field(), problem.message());
        }
        return parsed;
    }

    private static String ruleString(ObjectNode rule, String name, String field) {
        JsonNode value = rule.get(field);
        if (value == null || value.isNull()) {
            throw invalidAcl(name + "." + field, "is required");
        }
        if (!value.isTextual()) {
            throw invalidAcl(name + "." + field, "must be a string");
        }
        return value.textValue();
    }

    private static List<Integer> qos(JsonNode value, String field) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isArray() || value.isEmpty() || value.size() > 3) {
            throw invalidAcl(field, "must list values from 0 to 2");
        }
        List<Integer> levels = new ArrayList<>(value.size());
        for (JsonNode level : value) {
            if (!level.isIntegralNumber() || !level.canConvertToInt() || level.intValue() < 0 || level.intValue() > 2) {
                throw invalidAcl(field, "must list values from 0 to 2");
            }
            levels.add(level.intValue());
        }
        return List.copyOf(levels);
    }

    private static Boolean retain(JsonNode value, String field) {
        if (value == null || value.isNull()) {
            return null;
        }
        if (!value.isBoolean()) {
            throw invalidAcl(field, "must be true or false");
        }
        return value.booleanValue();
    }

    private static InvalidRequestException invalidAcl(String field, String message) {
        return InvalidRequestException.badRequest("invalid_acl", "field '" + field + "' " + message);
    }

    /** A caller-chosen field name as put in a message: bounded, so a message never grows with the body. */
    static String shown(String field) {
        return field.length() <= MAX_SHOWN_NAME ? field : field.substring(0, MAX_SHOWN_NAME) + "...";
    }

    @Override
    public String toString() {
        return "RegistrationRequest[" + (passwordHash != null ? "password_hash, " : "") + "username=" + username
                + ", superuser=" + superuser + ", acl=" + acl.size() + " rules]";
    }
}
