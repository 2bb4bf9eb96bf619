package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.hasSize;
import static org.hamcrest.Matchers.not;
import static org.hamcrest.Matchers.notNullValue;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.deviceidentity.credentials.AclRule;
import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.credentials.DeviceStatus;
import io.deviceidentity.registration.support.Database;
import io.quarkus.test.junit.QuarkusTest;

@QuarkusTest
class DeviceLifecycleTest {

    private static final String PATH = "/v1/devices/{id}";

    @Test
    void putCreatesWith201AndTheSameRequestAgainReplacesWith200LeavingOneRow() {
        String id = uniqueId("idempotent");
        api().body(passwordBody("first-password-padded-")).put(PATH, id)
                .then().statusCode(201).header("Location", "/v1/devices/" + id)
                .body("clientid", equalTo(id)).body("status", equalTo("active"));
        api().body(passwordBody("first-password-padded-")).put(PATH, id)
                .then().statusCode(200).body("clientid", equalTo(id));

        assertEquals(1, Database.countWithPrefix(id));
        assertTrue(Bcrypt.matches("first-password-padded-", Database.row(id).orElseThrow().passwordHash()));
    }

    @Test
    void putReplacesTheCredentialSoOnlyTheNewPasswordMatches() {
        String id = uniqueId("replace");
        api().body(passwordBody("old-password-padded-to")).put(PATH, id).then().statusCode(201);
        api().body(passwordBody("new-password-padded-to")).put(PATH, id).then().statusCode(200);

        String hash = Database.row(id).orElseThrow().passwordHash();
        assertTrue(Bcrypt.matches("new-password-padded-to", hash));
        assertFalse(Bcrypt.matches("old-password-padded-to", hash));
    }

    @Test
    void putStoresUsernameSuperuserAndAclAndAnOmittedFieldFallsBackToItsDefault() {
        String id = uniqueId("fields");
        api().body("""
                {"password":"p-1-padded-to-22-chara","username":"meter-7","superuser":true,
                 "acl":[{"permission":"allow","action":"publish","topic":"meters/${clientid}/#","qos":[0,1],"retain":false}]}
                """).put(PATH, id).then().statusCode(201)
                .body("username", equalTo("meter-7")).body("superuser", equalTo(true))
                .body("acl", hasSize(1)).body("acl[0].topic", equalTo("meters/${clientid}/#"))
                .body("acl_source", equalTo("device"));
        DeviceCredential stored = Database.row(id).orElseThrow();
        assertEquals("meter-7", stored.username());
        assertTrue(stored.superuser());
        assertEquals(List.of(new AclRule("allow", "publish", "meters/${clientid}/#", List.of(0, 1), false)),
                stored.acl());

        // PUT replaces the whole credential: what is not sent is reset, not kept.
        api().body(passwordBody("p-2-padded-to-22-chara")).put(PATH, id).then().statusCode(200)
                .body("username", nullValue()).body("superuser", equalTo(false))
                // No rules of its own: the answer shows the default rules auth-service applies, and says so.
                .body("acl_source", equalTo("default")).body("acl", hasSize(2))
                .body("acl[0].permission", equalTo("allow")).body("acl[0].action", equalTo("publish"))
                .body("acl[0].topic", equalTo("devices/${clientid}/#"))
                .body("acl[1].action", equalTo("subscribe"))
                .body("acl[1].topic", equalTo("devices/${clientid}/commands/#"));
        DeviceCredential replaced = Database.row(id).orElseThrow();
        assertEquals(null, replaced.username());
        assertFalse(replaced.superuser());
        assertEquals(List.of(), replaced.acl());
    }

    @Test
    void getShowsTheMetadataButNeverTheHash() {
        String id = uniqueId("get");
        api().body("{\"password\":\"get-password-padded-to\",\"username\":\"u-1\"}").put(PATH, id).then().statusCode(201);
        String hash = Database.row(id).orElseThrow().passwordHash();

        String body = api().get(PATH, id).then().statusCode(200)
                .body("clientid", equalTo(id)).body("username", equalTo("u-1"))
                .body("status", equalTo("active")).body("superuser", equalTo(false))
                .body("created_at", notNullValue()).body("updated_at", notNullValue())
                .body("password_hash", nullValue()).body("password", nullValue())
                .extract().asString();
        assertFalse(body.contains(hash), "the answer carries the hash");
        assertFalse(body.contains("$2b$"), "the answer carries a bcrypt string");
    }

    @Test
    void getAndDeleteOfAnUnknownDeviceAre404WithAJsonReason() {
        String id = uniqueId("unknown");
        api().get(PATH, id).then().statusCode(404).body("reason", equalTo("not_found"));
        api().delete(PATH, id).then().statusCode(404).body("reason", equalTo("not_found"));
        assertTrue(Database.row(id).isEmpty());
    }

    @Test
    void putAndDeleteClearAuthServicesFastPathVerifier() {
        String id = uniqueId("verifier");
        api().body(passwordBody("first-password-padded-")).put(PATH, id).then().statusCode(201);
        Database.plantVerifier(id);
        assertTrue(Database.rowWithVerifier(id).orElseThrow().verifier() != null);

        api().body(passwordBody("second-password-padded")).put(PATH, id).then().statusCode(200);
        assertEquals(null, Database.rowWithVerifier(id).orElseThrow().verifier(), "PUT cleared it");

        Database.plantVerifier(id);
        api().delete(PATH, id).then().statusCode(204);
        assertEquals(null, Database.rowWithVerifier(id).orElseThrow().verifier(), "DELETE cleared it");
    }

    @Test
    void deleteRevokesSoTheCheckAuthServiceRunsDeniesTheDeviceFromTheNextAttempt() {
        String id = uniqueId("revoke");
        api().body(passwordBody("revoke-me-padded-to-22")).put(PATH, id).then().statusCode(201);
        DeviceCredential before = Database.row(id).orElseThrow();
        // auth-service allows exactly when the row is active and the password matches its hash.
        assertTrue(before.isActive() && Bcrypt.matches("revoke-me-padded-to-22", before.passwordHash()));

        api().delete(PATH, id).then().statusCode(204);

        DeviceCredential after = Database.row(id).orElseThrow();
        assertEquals(DeviceStatus.REVOKED, after.status());
        assertFalse(after.isActive(), "auth-service would still allow the revoked device");
        api().get(PATH, id).then().statusCode(200).body("status", equalTo("revoked"));
    }

    @Test
    void aSecondDeleteOfARevokedDeviceIs204LikeTheFirstAndGetStillShowsItRevoked() {
        String id = uniqueId("revoke-twice");
        api().body(passwordBody("revoke-me-padded-to-22")).put(PATH, id).then().statusCode(201);
        api().delete(PATH, id).then().statusCode(204);
        java.time.Instant revokedAt = Database.row(id).orElseThrow().updatedAt();

        api().delete(PATH, id).then().statusCode(204);

        DeviceCredential after = Database.row(id).orElseThrow();
        assertEquals(DeviceStatus.REVOKED, after.status());
        assertEquals(revokedAt, after.updatedAt(), "a second DELETE rewrote the row");
        api().get(PATH, id).then().statusCode(200).body("status", equalTo("revoked"));
    }

    @Test
    void pathsAndMethodsTheApiDoesNotHaveAreJsonErrors() {
        api().get("/v1/devices").then().statusCode(404)
                .contentType(org.hamcrest.Matchers.startsWith("application/json"))
                .body("reason", equalTo("not_found")).body("message", notNullValue());
        api().body(passwordBody("p")).post("/v1/devices").then().statusCode(404)
                .contentType(org.hamcrest.Matchers.startsWith("application/json"))
                .body("reason", equalTo("not_found"));
        api().body(passwordBody("p")).post(PATH, uniqueId("post")).then().statusCode(405)
                .contentType(org.hamcrest.Matchers.startsWith("application/json"))
                .body("reason", equalTo("method_not_allowed"))
                .header("Allow", equalTo("DELETE, GET, HEAD, OPTIONS, PUT"));
    }

    @Test
    void putOnARevokedDeviceReactivatesIt() {
        String id = uniqueId("reactivate");
        api().body(passwordBody("pw-1-padded-to-22-char")).put(PATH, id).then().statusCode(201);
        api().delete(PATH, id).then().statusCode(204);

        api().body(passwordBody("pw-2-padded-to-22-char")).put(PATH, id).then().statusCode(200).body("status", equalTo("active"));

        DeviceCredential stored = Database.row(id).orElseThrow();
        assertTrue(stored.isActive());
        assertTrue(Bcrypt.matches("pw-2-padded-to-22-char", stored.passwordHash()));
        assertEquals(1, Database.countWithPrefix(id));
    }

    @Test
    void storedHashIsAFreshlySaltedBcryptAtTheConfiguredCost() {
        String first = uniqueId("salt");
        String second = uniqueId("salt");
        api().body(passwordBody("same-password-padded-t")).put(PATH, first).then().statusCode(201);
        api().body(passwordBody("same-password-padded-t")).put(PATH, second).then().statusCode(201);

        String firstHash = Database.row(first).orElseThrow().passwordHash();
        String secondHash = Database.row(second).orElseThrow().passwordHash();
        // %test.identity.registration.bcrypt-cost=4
        assertTrue(firstHash.startsWith("$2b$04$"), "not a cost-4 $2b$ hash");
        assertEquals(60, firstHash.length());
        org.hamcrest.MatcherAssert.assertThat(secondHash, not(equalTo(firstHash)));
    }
}
