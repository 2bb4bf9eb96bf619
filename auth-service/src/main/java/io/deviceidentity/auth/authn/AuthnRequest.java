package io.deviceidentity.auth.authn;

import java.util.List;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deviceidentity.http.JsonBodies;

/**
 * The body EMQX's HTTP authenticator posts. EMQX sends every field of its body template, always as a string, and a
 * placeholder without a value as {@code ""}. So the fields the decision reads, {@code clientid}, {@code username}
 * and {@code password}, are required (a missing or {@code null} one means the template is wrong: {@code 400
 * missing_field}); {@code peerhost} and {@code cert_common_name} are optional (only logged, or not read at all), but
 * must be strings when present. Unknown fields are ignored, so a template may carry more.
 */
public record AuthnRequest(String clientId, String username, String password, String peerHost) {

    /** What a failure is charged to when EMQX sent no {@code peerhost}: one budget shared by all such requests. */
    public static final String UNKNOWN_SOURCE = "unknown";
    /** The stored source's length bound (the column that keeps failure counts). */
    static final int MAX_SOURCE_LENGTH = 64;

    private static final List<String> REQUIRED = List.of("clientid", "password", "username");
    private static final List<String> OPTIONAL = List.of("peerhost", "cert_common_name");

    public static AuthnRequest from(ObjectNode body) {
        String[] fields = JsonBodies.strings(body, REQUIRED, OPTIONAL);
        return new AuthnRequest(fields[0], fields[2], fields[1], fields[3]);
    }

    /**
     * The source address a failure is charged to: EMQX's {@code peerhost} (the device's address as the broker sees
     * it), or {@link #UNKNOWN_SOURCE} when EMQX did not send one: a broker template without {@code peerhost} puts every
     * device in one budget, which the docs warn about.
     */
    public String source() {
        if (peerHost == null || peerHost.isBlank()) {
            return UNKNOWN_SOURCE;
        }
        String trimmed = peerHost.strip();
        return trimmed.length() > MAX_SOURCE_LENGTH ? trimmed.substring(0, MAX_SOURCE_LENGTH) : trimmed;
    }

    @Override
    public String toString() {
        return "AuthnRequest[clientId=" + clientId + ", username=" + username + ", peerHost=" + peerHost + "]";
    }
}
