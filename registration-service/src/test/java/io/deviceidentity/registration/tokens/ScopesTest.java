package io.deviceidentity.registration.tokens;

import static io.deviceidentity.registration.support.Devices.as;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.Devices;
import io.deviceidentity.registration.support.Imports;
import io.deviceidentity.testsupport.ForeignBcryptHashes;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.http.ContentType;

/**
 * Each scope, refused when missing: {@code 403} JSON with reason {@code forbidden} that names the token's id and the
 * scope, and nothing written. The test profile's tokens: admin (every scope), reader (read), writer (write),
 * importer (write + import-replace).
 */
@QuarkusTest
class ScopesTest {

    private static final String PATH = "/v1/devices/{id}";
    private static final String HASH = ForeignBcryptHashes.LIBXCRYPT_2B.hash();

    @Test
    void withoutWriteAPutIs403AndStoresNothing() {
        String id = uniqueId("scope-put");
        as(Devices.READER_TOKEN).body(passwordBody("a-long-enough-device-password")).put(PATH, id)
                .then().statusCode(403).contentType(ContentType.JSON).body("reason", equalTo("forbidden"))
                .body("message", containsString("token 'reader' lacks the scope 'write'"));
        assertTrue(Database.row(id).isEmpty());
    }

    @Test
    void withoutWriteADeleteIs403AndTheDeviceStaysActive() {
        String id = uniqueId("scope-delete");
        as(Devices.WRITER_TOKEN).body(passwordBody("a-long-enough-device-password")).put(PATH, id)
                .then().statusCode(201);
        as(Devices.READER_TOKEN).delete(PATH, id).then().statusCode(403).body("reason", equalTo("forbidden"));
        assertTrue(Database.row(id).orElseThrow().isActive());
        as(Devices.WRITER_TOKEN).delete(PATH, id).then().statusCode(204);
    }

    @Test
    void withoutReadAGetIs403AndReadMayNotWrite() {
        String id = uniqueId("scope-get");
        as(Devices.WRITER_TOKEN).body(passwordBody("a-long-enough-device-password")).put(PATH, id)
                .then().statusCode(201);
        as(Devices.WRITER_TOKEN).get(PATH, id).then().statusCode(403)
                .body("message", containsString("token 'writer' lacks the scope 'read'"));
        as(Devices.READER_TOKEN).get(PATH, id).then().statusCode(200).body("clientid", equalTo(id));
    }

    @Test
    void withoutSuperuserAPutThatStoresASuperuserIs403AndStoresNothingWhileOneThatDoesNotIsStored() {
        String id = uniqueId("scope-su");
        String superuser = "{\"password\":\"a-long-enough-device-password\",\"superuser\":true}";
        as(Devices.WRITER_TOKEN).body(superuser).put(PATH, id).then().statusCode(403)
                .body("reason", equalTo("forbidden")).body("message", containsString("'superuser'"));
        as(Devices.WRITER_TOKEN).body("{\"password_hash\":\"" + HASH + "\",\"superuser\":true}").put(PATH, id)
                .then().statusCode(403);
        assertTrue(Database.row(id).isEmpty());
        as(Devices.WRITER_TOKEN).body(passwordBody("a-long-enough-device-password")).put(PATH, id)
                .then().statusCode(201).body("superuser", equalTo(false));
        as(Devices.TOKEN).body(superuser).put(PATH, id).then().statusCode(200).body("superuser", equalTo(true));
        assertTrue(Database.row(id).orElseThrow().superuser());
    }

    @Test
    void withoutImportReplaceAnImportWithExistingReplaceIs403AndChangesNothing() {
        String prefix = uniquePrefix("scope-replace");
        assertEquals(200, Imports.post(Imports.line(prefix + "a", HASH), "", Devices.WRITER_TOKEN).status());
        String replacing = Imports.line(prefix + "a", ForeignBcryptHashes.LIBXCRYPT_2Y.hash());

        Imports.Answer refused = Imports.post(replacing, "?existing=replace", Devices.WRITER_TOKEN);
        assertEquals(403, refused.status());
        assertEquals("forbidden", refused.lines().get(0).get("reason").asText());
        assertTrue(refused.lines().get(0).get("message").asText().contains("'import-replace'"));
        assertEquals(HASH, Database.row(prefix + "a").orElseThrow().passwordHash());

        Imports.Answer replaced = Imports.post(replacing, "?existing=replace", Devices.IMPORTER_TOKEN);
        assertEquals(1, replaced.summary().get("replaced").asLong(), replaced.lines().toString());
    }

    @Test
    void withoutWriteAnImportIs403AndWithoutSuperuserItsSuperuserLinesAreRejected() {
        String prefix = uniquePrefix("scope-import");
        Imports.Answer reader = Imports.post(Imports.line(prefix + "r", HASH), "", Devices.READER_TOKEN);
        assertEquals(403, reader.status());
        assertEquals(0, Database.countWithPrefix(prefix));

        String body = Imports.line(prefix + "plain", HASH) + "{\"client_id\":\"" + prefix
                + "su\",\"password_hash\":\"" + HASH + "\",\"superuser\":true}\n";
        Imports.Answer writer = Imports.post(body, "", Devices.WRITER_TOKEN);
        assertEquals(200, writer.status());
        assertEquals(Map.of(2, "forbidden"), writer.rejectedReasons());
        assertEquals(1, writer.summary().get("imported").asLong());
        assertTrue(Database.row(prefix + "su").isEmpty());

        Imports.Answer admin = Imports.post(body, "", Devices.TOKEN);
        assertEquals(Map.of(), admin.rejectedReasons());
        assertTrue(Database.row(prefix + "su").orElseThrow().superuser());
    }

    @Test
    void theWeakHashReportNeedsRead() {
        as(Devices.WRITER_TOKEN).get("/v1/device-reports/weak-hashes").then().statusCode(403)
                .body("reason", equalTo("forbidden"));
        as(Devices.READER_TOKEN).get("/v1/device-reports/weak-hashes").then().statusCode(200);
    }

    @Test
    void aTokenInTheFormatBeforeIdsKeepsEveryScope() {
        String id = uniqueId("scope-legacy");
        as(Devices.SECOND_TOKEN).body("{\"password\":\"a-long-enough-device-password\",\"superuser\":true}")
                .put(PATH, id).then().statusCode(201);
        as(Devices.SECOND_TOKEN).get(PATH, id).then().statusCode(200);
        assertFalse(Database.row(id).isEmpty());
    }
}
