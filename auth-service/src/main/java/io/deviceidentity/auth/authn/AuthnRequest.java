package io.deviceidentity.auth.authn;

import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deviceidentity.http.JsonBodies;

/**
 * The body EMQX's HTTP authenticator posts. Every value is a string and a missing value arrives as {@code ""};
 * a missing {@code clientid} or {@code password} key means the authenticator's body template is wrong.
 */
public record AuthnRequest(String clientId, String username, String password, String peerHost) {

    public static AuthnRequest from(ObjectNode body) {
        return new AuthnRequest(
                JsonBodies.requiredString(body, "clientid"),
                JsonBodies.optionalString(body, "username", ""),
                JsonBodies.requiredString(body, "password"),
                JsonBodies.optionalString(body, "peerhost", ""));
    }

    @Override
    public String toString() {
        return "AuthnRequest[clientId=" + clientId + ", username=" + username + ", peerHost=" + peerHost + "]";
    }
}
