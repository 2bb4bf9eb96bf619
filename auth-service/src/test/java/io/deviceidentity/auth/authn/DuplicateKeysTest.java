package io.deviceidentity.auth.authn;

import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.startsWith;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/**
 * A body with a key twice is a 400 naming the key, on both endpoints, never resolved last-wins: a device must not
 * be authenticated by whichever of two passwords a parser happens to keep.
 */
@QuarkusTest
class DuplicateKeysTest {

    @Test
    void authnBodyWithTwoPasswordsIsA400NamingTheField() {
        String id = uniqueId("dup");
        device(id).password("right-password").store();
        given().contentType("application/json")
                .body("{\"clientid\":\"" + id + "\",\"password\":\"wrong\",\"password\":\"right-password\"}")
                .post("/mqtt/authn").then()
                .statusCode(400)
                .contentType(startsWith("application/json"))
                .body("reason", equalTo("duplicate_field"))
                .body("message", containsString("'password'"));
    }

    @Test
    void authnBodyWithTwoClientIdsIsA400() {
        given().contentType("application/json")
                .body("{\"clientid\":\"a\",\"clientid\":\"b\",\"password\":\"x\"}")
                .post("/mqtt/authn").then()
                .statusCode(400)
                .body("reason", equalTo("duplicate_field"))
                .body("message", containsString("'clientid'"));
    }

    @Test
    void authzBodyWithTwoTopicsIsA400NamingTheField() {
        given().contentType("application/json")
                .body("{\"clientid\":\"a\",\"username\":\"\",\"action\":\"publish\",\"topic\":\"devices/a/x\","
                        + "\"topic\":\"#\",\"qos\":\"0\",\"retain\":\"false\"}")
                .post("/mqtt/authz").then()
                .statusCode(400)
                .contentType(startsWith("application/json"))
                .body("reason", equalTo("duplicate_field"))
                .body("message", containsString("'topic'"));
    }
}
