package io.deviceidentity.loadtest.emqx;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.vertx.core.buffer.Buffer;

/**
 * The JSON body EMQX's HTTP authenticator posts with the recommended template: every value a string, a missing
 * value as {@code ""} (no username, no TLS client certificate).
 */
public final class AuthnBody {

    private static final ObjectMapper JSON = new ObjectMapper();

    private AuthnBody() {
    }

    public static Buffer of(String clientId, String username, String password, String peerHost) {
        ObjectNode body = JSON.createObjectNode()
                .put("clientid", clientId)
                .put("username", username == null ? "" : username)
                .put("password", password == null ? "" : password)
                .put("peerhost", peerHost == null ? "" : peerHost)
                .put("cert_common_name", "");
        try {
            return Buffer.buffer(JSON.writeValueAsBytes(body));
        } catch (JsonProcessingException impossible) {
            throw new IllegalStateException(impossible);
        }
    }
}
