package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.registration.support.Database;
import io.deviceidentity.testsupport.ForeignBcryptHashes;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * {@code PUT} with {@code password_hash}: a bcrypt hash made elsewhere is stored exactly as given, and everything
 * else about PUT (answers, idempotency, fields, the verifier cleared) is as with a password.
 */
@QuarkusTest
class PasswordHashTest {

    private static final String PATH = "/v1/devices/{id}";
    private static final ObjectMapper JSON = new ObjectMapper();
    static final List<ForeignBcryptHashes.Vector> VECTORS = ForeignBcryptHashes.ALL;
    static final List<String> NOT_STORABLE = ForeignBcryptHashes.NOT_STORABLE;

    static String hashBody(String hash) {
        return JSON.createObjectNode().put("password_hash", hash).toString();
    }

    @ParameterizedTest(name = "{0}")
    @FieldSource("VECTORS")
    void aBcryptHashIsStoredAsGivenAndARepeatedPutIsA200(ForeignBcryptHashes.Vector vector) {
        String id = uniqueId("hash");
        api().body(hashBody(vector.hash())).put(PATH, id).then().statusCode(201)
                .header("Location", "/v1/devices/" + id).body("clientid", equalTo(id))
                .body(not(containsString(vector.hash().substring(7))));
        assertEquals(vector.hash(), Database.row(id).orElseThrow().passwordHash());
        api().body(hashBody(vector.hash())).put(PATH, id).then().statusCode(200);
        assertEquals(vector.hash(), Database.row(id).orElseThrow().passwordHash());
    }

    @Test
    void theOptionalFieldsAreStoredWithAHashAsWithAPassword() {
        String id = uniqueId("hash-fields");
        String body = "{\"password_hash\":\"" + ForeignBcryptHashes.LIBXCRYPT_2B.hash() + "\",\"username\":\"meter\","
                + "\"superuser\":true,\"acl\":[{\"permission\":\"allow\",\"action\":\"publish\",\"topic\":\"m/#\"}]}";
        api().body(body).put(PATH, id).then().statusCode(201).body("username", equalTo("meter"))
                .body("superuser", equalTo(true)).body("acl_source", equalTo("device"));
        DeviceCredential row = Database.row(id).orElseThrow();
        assertEquals("meter", row.username());
        assertTrue(row.superuser());
        assertEquals("m/#", row.acl().get(0).topic());
    }

    @Test
    void aPutWithAHashClearsTheFastPathVerifierAndReactivatesARevokedDevice() {
        String id = uniqueId("hash-verifier");
        api().body(hashBody(ForeignBcryptHashes.LIBXCRYPT_2A.hash())).put(PATH, id).then().statusCode(201);
        Database.plantVerifier(id);
        api().delete(PATH, id).then().statusCode(204);
        api().body(hashBody(ForeignBcryptHashes.LIBXCRYPT_2B.hash())).put(PATH, id).then().statusCode(200)
                .body("status", equalTo("active"));
        DeviceCredential row = Database.rowWithVerifier(id).orElseThrow();
        assertNull(row.verifier());
        assertEquals(ForeignBcryptHashes.LIBXCRYPT_2B.hash(), row.passwordHash());
    }

    @ParameterizedTest(name = "\"{0}\"")
    @FieldSource("NOT_STORABLE")
    void aHashThatIsNotAStorableBcryptHashIs400NamingTheFieldAndWritesNothing(String hash) {
        String id = uniqueId("hash-bad");
        String answer = api().body(hashBody(hash)).put(PATH, id).then().statusCode(400)
                .contentType(ContentType.JSON).body("reason", equalTo("invalid_password_hash"))
                .body("message", containsString("'password_hash'")).extract().asString();
        if (hash.length() > 8) {
            assertTrue(!answer.contains(hash.substring(7)), "the answer quotes the hash: " + answer);
        }
        assertTrue(Database.row(id).isEmpty());
    }

    @Test
    void aPasswordAndAHashTogetherAre400NamingBothFieldsAndWriteNothing() {
        String id = uniqueId("hash-both");
        api().body("{\"password\":\"a-password\",\"password_hash\":\"" + ForeignBcryptHashes.LIBXCRYPT_2B.hash()
                + "\"}").put(PATH, id).then().statusCode(400).body("reason", equalTo("conflicting_fields"))
                .body("message", containsString("'password'")).body("message", containsString("'password_hash'"));
        assertTrue(Database.row(id).isEmpty());
    }

    @Test
    void neitherAPasswordNorAHashIsAMissingField() {
        String id = uniqueId("hash-none");
        api().body("{\"username\":\"u\"}").put(PATH, id).then().statusCode(400)
                .body("reason", equalTo("missing_field")).body("message", containsString("'password'"));
        api().body("{\"password_hash\":null}").put(PATH, id).then().statusCode(400)
                .body("reason", equalTo("missing_field"));
        api().body("{\"password_hash\":42}").put(PATH, id).then().statusCode(400)
                .body("reason", equalTo("invalid_field"));
        assertTrue(Database.row(id).isEmpty());
    }
}
