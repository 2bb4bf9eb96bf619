package io.deviceidentity.auth.support;

import static io.restassured.RestAssured.given;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.restassured.response.Response;

/** Requests shaped exactly as EMQX's HTTP authenticator and authorization source send them. */
public final class Emqx {

    private static final ObjectMapper JSON = new ObjectMapper();

    private Emqx() {
    }

    public static String authnBody(String clientId, String username, String password) {
        return authnBody("127.0.0.1", clientId, username, password);
    }

    /** As EMQX sends it for a device connecting from {@code peerHost}. */
    public static String authnBody(String peerHost, String clientId, String username, String password) {
        ObjectNode body = JSON.createObjectNode();
        body.put("clientid", clientId);
        body.put("username", username);
        body.put("password", password);
        body.put("peerhost", peerHost);
        body.put("cert_common_name", "");
        return body.toString();
    }

    public static Response authn(String clientId, String password) {
        return authn(clientId, "", password);
    }

    public static Response authn(String clientId, String username, String password) {
        return given().contentType("application/json").body(authnBody(clientId, username, password))
                .post("/mqtt/authn");
    }

    /** A CONNECT from {@code peerHost} (the budgets are per source address). */
    public static Response authnFrom(String peerHost, String clientId, String password) {
        return given().contentType("application/json").body(authnBody(peerHost, clientId, "", password))
                .post("/mqtt/authn");
    }

    /**
     * The first 200 answer to a CONNECT from {@code peerHost}: a cold check (a bcrypt) may be refused 503 on a machine
     * busy with other work (bcrypt runs at idle priority), which is "not now", never a decision; a device retries it.
     */
    public static Response decidedFrom(String peerHost, String clientId, String password) {
        Response answer = authnFrom(peerHost, clientId, password);
        for (int retry = 0; retry < 20 && answer.statusCode() == 503; retry++) {
            answer = authnFrom(peerHost, clientId, password);
        }
        if (answer.statusCode() != 200) {
            throw new AssertionError("no decision: " + answer.statusCode() + " " + answer.asString());
        }
        return answer;
    }

    public static Response authz(String clientId, String action, String topic, String qos, String retain) {
        return authz(clientId, "", action, topic, qos, retain);
    }

    /** As EMQX sends it for a client connected with {@code username} ({@code ""}: none). */
    public static Response authz(String clientId, String username, String action, String topic, String qos,
            String retain) {
        ObjectNode body = JSON.createObjectNode();
        body.put("clientid", clientId);
        body.put("username", username);
        body.put("peerhost", "127.0.0.1");
        body.put("action", action);
        body.put("topic", topic);
        body.put("qos", qos);
        body.put("retain", retain);
        return given().contentType("application/json").body(body.toString()).post("/mqtt/authz");
    }
}
