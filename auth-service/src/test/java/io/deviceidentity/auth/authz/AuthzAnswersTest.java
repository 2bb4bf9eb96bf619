package io.deviceidentity.auth.authz;

import static io.deviceidentity.auth.support.Emqx.authz;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/** POST /mqtt/authz: EMQX's HTTP authorization source, answered from the same rules the authn answer carries. */
@QuarkusTest
class AuthzAnswersTest {

    @Test
    void defaultRulesLetADevicePublishUnderItsOwnSubtreeOnly() {
        String id = uniqueId("authz");
        device(id).store();

        authz(id, "publish", "devices/" + id + "/telemetry", "1", "false").then()
                .statusCode(200).contentType(startsWith("application/json")).body("result", equalTo("allow"));
        authz(id, "publish", "devices/someone-else/telemetry", "1", "false").then()
                .statusCode(200).body("result", equalTo("deny"));
        authz(id, "publish", "devices/" + id, "0", "false").then()
                .statusCode(200).body("result", equalTo("allow"));
    }

    @Test
    void defaultRulesLetADeviceSubscribeToItsOwnCommandsOnly() {
        String id = uniqueId("authz-sub");
        device(id).store();

        authz(id, "subscribe", "devices/" + id + "/commands/#", "1", "false").then().body("result", equalTo("allow"));
        authz(id, "subscribe", "devices/" + id + "/commands/reboot", "0", "false").then()
                .body("result", equalTo("allow"));
        authz(id, "subscribe", "devices/" + id + "/#", "0", "false").then().body("result", equalTo("deny"));
        authz(id, "subscribe", "devices/+/commands/#", "0", "false").then().body("result", equalTo("deny"));
        authz(id, "subscribe", "#", "0", "false").then().body("result", equalTo("deny"));
    }

    @Test
    void ownRulesApplyInOrderWithQosAndRetainConditions() {
        String id = uniqueId("authz-own");
        device(id).acl("[{\"permission\":\"deny\",\"action\":\"publish\",\"topic\":\"fleet/${clientid}/secret\"},"
                + "{\"permission\":\"allow\",\"action\":\"publish\",\"topic\":\"fleet/${clientid}/#\",\"qos\":[0,1],"
                + "\"retain\":false},"
                + "{\"permission\":\"allow\",\"action\":\"subscribe\",\"topic\":\"eq fleet/broadcast/#\"}]").store();

        authz(id, "publish", "fleet/" + id + "/data", "1", "false").then().body("result", equalTo("allow"));
        authz(id, "publish", "fleet/" + id + "/data", "2", "false").then().body("result", equalTo("deny"));
        authz(id, "publish", "fleet/" + id + "/data", "0", "true").then().body("result", equalTo("deny"));
        authz(id, "publish", "fleet/" + id + "/secret", "0", "false").then().body("result", equalTo("deny"));
        authz(id, "subscribe", "fleet/broadcast/#", "0", "false").then().body("result", equalTo("allow"));
        authz(id, "subscribe", "fleet/broadcast/news", "0", "false").then().body("result", equalTo("deny"));
        authz(id, "publish", "devices/" + id + "/x", "0", "false").then().body("result", equalTo("deny"));
    }

    @Test
    void superuserMayDoAnything() {
        String id = uniqueId("authz-root");
        device(id).superuser().store();

        authz(id, "subscribe", "#", "2", "false").then().body("result", equalTo("allow"));
    }

    @Test
    void unknownAndRevokedDevicesAreDenied() {
        String revoked = uniqueId("authz-revoked");
        device(revoked).revoked().store();

        authz(uniqueId("authz-nobody"), "publish", "devices/x/y", "0", "false").then().body("result", equalTo("deny"));
        authz(revoked, "publish", "devices/" + revoked + "/y", "0", "false").then().body("result", equalTo("deny"));
    }

    @Test
    void malformedAuthzRequestsAreA400() {
        authzBody(fields().put("action", "fly")).then().statusCode(400).body("reason", equalTo("invalid_field"));
        authzBody(fields().put("qos", "7")).then().statusCode(400).body("reason", equalTo("invalid_field"));
        authzBody(fields().put("qos", "")).then().statusCode(400).body("reason", equalTo("invalid_field"));
        authzBody(fields().put("retain", "maybe")).then().statusCode(400).body("reason", equalTo("invalid_field"));
        authzBody(fields().put("topic", "")).then().statusCode(400).body("reason", equalTo("invalid_field"));
        authzBody(fields().put("peerhost", 7)).then().statusCode(400).body("reason", equalTo("invalid_field"));
        given().contentType("application/json").body("{oops").post("/mqtt/authz").then().statusCode(400)
                .body("reason", equalTo("malformed_json"));
    }

    /** EMQX sends every field of the template; each one the decision reads is required. */
    @ParameterizedTest
    @ValueSource(strings = { "clientid", "username", "action", "topic", "qos", "retain" })
    void everyFieldTheDecisionReadsIsRequired(String field) {
        ObjectNode missing = fields();
        missing.remove(field);
        authzBody(missing).then().statusCode(400).body("reason", equalTo("missing_field"))
                .body("message", containsString(field));
        authzBody(fields().putNull(field)).then().statusCode(400).body("reason", equalTo("missing_field"));
    }

    @Test
    void peerhostMayBeLeftOutOfTheTemplate() {
        String id = uniqueId("authz-nopeer");
        device(id).store();
        ObjectNode body = fields().put("clientid", id).put("topic", "devices/" + id + "/t");
        body.remove("peerhost");

        authzBody(body).then().statusCode(200).body("result", equalTo("allow"));
    }

    private static ObjectNode fields() {
        return new ObjectMapper().createObjectNode().put("clientid", "a").put("username", "").put("peerhost", "::1")
                .put("action", "publish").put("topic", "t").put("qos", "0").put("retain", "false");
    }

    private static Response authzBody(ObjectNode body) {
        return given().contentType("application/json").body(body.toString()).post("/mqtt/authz");
    }
}
