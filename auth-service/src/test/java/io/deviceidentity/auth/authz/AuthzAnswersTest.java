package io.deviceidentity.auth.authz;

import static io.deviceidentity.auth.support.Emqx.authz;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

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
        given().contentType("application/json").body("{\"clientid\":\"a\",\"action\":\"fly\",\"topic\":\"t\"}")
                .post("/mqtt/authz").then().statusCode(400).body("reason", equalTo("invalid_field"));
        given().contentType("application/json")
                .body("{\"clientid\":\"a\",\"action\":\"publish\",\"topic\":\"t\",\"qos\":\"7\"}")
                .post("/mqtt/authz").then().statusCode(400).body("reason", equalTo("invalid_field"));
        given().contentType("application/json").body("{\"clientid\":\"a\",\"action\":\"publish\"}")
                .post("/mqtt/authz").then().statusCode(400).body("reason", equalTo("missing_field"));
        given().contentType("application/json").body("{oops").post("/mqtt/authz").then().statusCode(400);
    }
}
