package io.deviceidentity.auth.authn;

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

    public static AuthnRequest from(ObjectNode body) {
        String clientId = JsonBodies.requiredString(body, "clientid");
        String password = JsonBodies.requiredString(body, "password");
        String username = JsonBodies.requiredString(body, "username");
        String peerHost = JsonBodies.optionalString(body, "peerhost", "");
        JsonBodies.optionalString(body, "cert_common_name", "");
        return new AuthnRequest(clientId, username, password, peerHost);
    }

    @Override
    public String toString() {
        return "AuthnRequest[clientId=" + clientId + ", username=" + username + ", peerHost=" + peerHost + "]";
    }
}
