package io.deviceidentity.auth.authn;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.hamcrest.Matchers.contains;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.nullValue;
import static org.hamcrest.Matchers.startsWith;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;

/** The EMQX contract of POST /mqtt/authn, through PgBouncer to PostgreSQL. */
@QuarkusTest
class AuthnAnswersTest {

    @Test
    void validCredentialsAreAllowedWithTheDefaultAcl() {
        String id = uniqueId("allow");
        String password = device(id).store();

        authn(id, password).then()
                .statusCode(200)
                .contentType(startsWith("application/json"))
                .body("result", equalTo("allow"))
                .body("is_superuser", equalTo(false))
                .body("acl", hasSize(2))
                .body("acl.permission", contains("allow", "allow"))
                .body("acl.action", contains("publish", "subscribe"))
                .body("acl.topic", contains("devices/" + id + "/#", "devices/" + id + "/commands/#"));
    }

    @Test
    void wrongPasswordIsDenied() {
        String id = uniqueId("wrong");
        device(id).password("right-password").store();

        authn(id, "wrong-password").then()
                .statusCode(200)
                .contentType(startsWith("application/json"))
                .body("result", equalTo("deny"))
                .body("acl", nullValue());
    }

    @Test
    void unknownDeviceIsDeniedNotOverload() {
        authn(uniqueId("nobody"), "whatever").then()
                .statusCode(200)
                .body("result", equalTo("deny"));
    }

    @Test
    void revokedDeviceIsDeniedEvenWithTheRightPassword() {
        String id = uniqueId("revoked");
        String password = device(id).revoked().store();

        authn(id, password).then().statusCode(200).body("result", equalTo("deny"));
    }

    @Test
    void superuserIsAllowedAndFlaggedWithoutAcl() {
        String id = uniqueId("root");
        String password = device(id).superuser().store();

        authn(id, password).then()
                .statusCode(200)
                .body("result", equalTo("allow"))
                .body("is_superuser", equalTo(true))
                .body("acl", nullValue());
    }

    @Test
    void deviceWithItsOwnRulesGetsThemInsteadOfTheDefault() {
        String id = uniqueId("custom");
        String password = device(id)
                .acl("[{\"permission\":\"allow\",\"action\":\"all\",\"topic\":\"fleet/${clientid}/#\",\"qos\":[0,1]},"
                        + "{\"permission\":\"deny\",\"action\":\"subscribe\",\"topic\":\"#\"}]")
                .store();

        authn(id, password).then()
                .statusCode(200)
                .body("result", equalTo("allow"))
                .body("acl", hasSize(2))
                .body("acl[0].action", equalTo("all"))
                .body("acl[0].topic", equalTo("fleet/" + id + "/#"))
                .body("acl[0].qos", contains(0, 1))
                .body("acl[1].permission", equalTo("deny"));
    }

    @Test
    void deviceRegisteredWithAUsernameMustPresentIt() {
        String id = uniqueId("named");
        String password = device(id).username("alice").store();

        authn(id, "alice", password).then().statusCode(200).body("result", equalTo("allow"));
        authn(id, "mallory", password).then().statusCode(200).body("result", equalTo("deny"));
        authn(id, "", password).then().statusCode(200).body("result", equalTo("deny"));
    }

    @Test
    void emptyPasswordIsDenied() {
        String id = uniqueId("empty");
        device(id).store();

        authn(id, "").then().statusCode(200).body("result", equalTo("deny"));
    }

    @Test
    void passwordOver72BytesIsDeniedEvenWhenItsFirst72BytesAreRight() {
        String id = uniqueId("long");
        String first72 = "k".repeat(72);
        device(id).password(first72).store();

        authn(id, first72).then().statusCode(200).body("result", equalTo("allow"));
        authn(id, first72 + "x").then().statusCode(200).body("result", equalTo("deny"));
    }
}
