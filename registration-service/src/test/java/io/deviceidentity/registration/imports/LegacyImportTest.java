package io.deviceidentity.registration.imports;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static io.deviceidentity.testsupport.LegacyHashVectors.ARGON2ID;
import static io.deviceidentity.testsupport.LegacyHashVectors.EMQX_PBKDF2_SHA256_4096;
import static io.deviceidentity.testsupport.LegacyHashVectors.MD5_PREFIX;
import static io.deviceidentity.testsupport.LegacyHashVectors.MOSQUITTO_PBKDF2;
import static io.deviceidentity.testsupport.LegacyHashVectors.PASSWORD;
import static io.deviceidentity.testsupport.LegacyHashVectors.SALT;
import static io.deviceidentity.testsupport.LegacyHashVectors.SHA256_PREFIX;
import static io.deviceidentity.testsupport.LegacyHashVectors.SHA256_UNSALTED;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.credentials.legacy.PasswordScheme;
import io.deviceidentity.credentials.legacy.StoredPasswords;
import io.deviceidentity.registration.passwords.LegacyHashes;
import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.Imports;
import io.deviceidentity.testsupport.MosquittoPasswd;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;

/**
 * Imports of other brokers' hashes against the real PostgreSQL through PgBouncer: an EMQX built-in-database export
 * (salted SHA-256, the salt put before the password) and a mosquitto-go-auth export (PBKDF2 strings) are stored with
 * their scheme, in a form that verifies the device's existing password; weak schemes only with
 * {@code allow_weak_schemes=true}; a bad line is rejected naming its field and writes nothing.
 */
@QuarkusTest
class LegacyImportTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    @Inject
    MeterRegistry registry;

    @Test
    void anEmqxExportAndAMosquittoExportAreStoredWithTheirSchemesAndVerifyTheOldPasswords() {
        String prefix = uniquePrefix("legacy-import");
        double emqxBefore = written("salted-sha256");
        // As EMQX's built-in database holds them (user_id, password_hash, salt; salt_position prefix, its default).
        String body = line(prefix + "emqx", "emqx-sha256", SHA256_PREFIX, Map.of("salt", SALT))
                + line(prefix + "emqx-explicit-prefix", "emqx-sha256", SHA256_PREFIX,
                        Map.of("salt", SALT, "salt_position", "prefix"))
                + line(prefix + "emqx-pbkdf2", "emqx-pbkdf2", EMQX_PBKDF2_SHA256_4096,
                        Map.of("salt", SALT, "mac_fun", "sha256", "iterations", 4096))
                + line(prefix + "mosq", "mosquitto-pbkdf2", MOSQUITTO_PBKDF2, Map.of())
                + line(prefix + "argon2", "argon2id", ARGON2ID, Map.of());
        Imports.Answer answer = Imports.post(body);
        assertEquals(200, answer.status());
        assertEquals(5, answer.summary().get("imported").asLong(), answer.lines().toString());
        assertEquals(0, answer.summary().get("weak_hashes").asLong(), answer.lines().toString());

        assertStored(prefix + "emqx", PasswordScheme.SALTED_SHA256);
        assertStored(prefix + "emqx-pbkdf2", PasswordScheme.PBKDF2_SHA256);
        assertStored(prefix + "mosq", PasswordScheme.PBKDF2_SHA512);
        assertStored(prefix + "argon2", PasswordScheme.ARGON2ID);
        assertEquals(emqxBefore + 2, written("salted-sha256"));

        // Re-running the same file changes nothing; replacing with the same lines finds nothing different.
        assertEquals(5, Imports.post(body).summary().get("skipped").asLong());
        assertEquals(5, Imports.post(body, "?existing=replace").summary().get("skipped").asLong());
    }

    @Test
    void aMosquittoPasswdFileImportsWithItsSchemesAndVerifiesTheOldPasswords() throws Exception {
        String prefix = uniquePrefix("legacy-mosquitto");
        Path file = Files.createTempDirectory("mosquitto").resolve("passwd");
        MosquittoPasswd.add(file, MosquittoPasswd.PBKDF2, prefix + "pbkdf2", PASSWORD);
        MosquittoPasswd.add(file, MosquittoPasswd.SHA512, prefix + "sha512", PASSWORD);
        MosquittoPasswd.add(file, MosquittoPasswd.PBKDF2, prefix + "named-pbkdf2", PASSWORD);
        double pbkdf2Before = written("pbkdf2-sha512");
        double sha512Before = written("salted-sha512");
        StringBuilder body = new StringBuilder();
        for (String passwdLine : Files.readAllLines(file)) {
            String user = passwdLine.substring(0, passwdLine.indexOf(':'));
            // The scheme name go-auth's PBKDF2 strings use takes a $7$ hash too: the name invites it.
            String scheme = user.endsWith("named-pbkdf2") ? "mosquitto-pbkdf2" : "mosquitto-passwd";
            body.append(line(user, scheme, passwdLine.substring(user.length() + 1), Map.of()));
        }
        Imports.Answer answer = Imports.post(body.toString());
        assertEquals(3, answer.summary().get("imported").asLong(), answer.lines().toString());
        assertStored(prefix + "pbkdf2", PasswordScheme.PBKDF2_SHA512);
        assertStored(prefix + "named-pbkdf2", PasswordScheme.PBKDF2_SHA512);
        assertStored(prefix + "sha512", PasswordScheme.SALTED_SHA512);
        assertEquals(pbkdf2Before + 2, written("pbkdf2-sha512"));
        assertEquals(sha512Before + 1, written("salted-sha512"));
    }

    @Test
    void aMalformedMosquittoPasswdLineIsRejectedNamingTheHashAndWritesNothing() {
        String prefix = uniquePrefix("legacy-mosquitto-bad");
        String good = MosquittoPasswd.hash(MosquittoPasswd.PBKDF2, PASSWORD);
        String[] parts = good.split("\\$");
        String body = line(prefix + "a", "mosquitto-passwd", good.substring(0, good.length() - 8), Map.of()) // cut
                + line(prefix + "b", "mosquitto-passwd", good.replace("$7$" + parts[2] + "$", "$7$many$"), Map.of())
                + line(prefix + "c", "mosquitto-passwd", good.replace("$7$", "$5$"), Map.of()) // another crypt
                + line(prefix + "d", "mosquitto-passwd", "$6$" + parts[3] + "$" + parts[3], Map.of()) // short hash
                + line(prefix + "e", "mosquitto-passwd", good, Map.of("salt_encoding", "base64"));
        Imports.Answer answer = Imports.post(body);
        assertEquals(Map.of(1, "invalid_password_hash", 2, "invalid_password_hash", 3, "invalid_password_hash",
                4, "invalid_password_hash", 5, "unknown_field"), answer.rejectedReasons(), answer.lines().toString());
        assertTrue(message(answer, 3).contains("$7$<iterations>$<salt>$<hash>"), message(answer, 3));
        assertTrue(message(answer, 4).contains("64-byte hash"), message(answer, 4));
        assertEquals(0, answer.summary().get("imported").asLong());
        assertEquals(0, Database.countWithPrefix(prefix));
    }

    @Test
    void anotherSchemesHashWithoutPasswordSchemeIsToldToNameItsScheme() {
        String prefix = uniquePrefix("legacy-unnamed");
        String body = Imports.line(prefix + "a", MosquittoPasswd.hash(MosquittoPasswd.PBKDF2, PASSWORD))
                + Imports.line(prefix + "b", ARGON2ID);
        Imports.Answer answer = Imports.post(body);
        assertEquals(Map.of(1, "invalid_password_hash", 2, "invalid_password_hash"), answer.rejectedReasons());
        for (int line = 1; line <= 2; line++) {
            String message = message(answer, line);
            assertTrue(message.contains("'password_scheme'"), message);
            assertTrue(message.contains(LegacyImportLines.legacySchemes()), message);
            assertTrue(message.length() <= 300, "as short as every refusal: " + message);
            assertFalse(message.contains("cannot be imported"), message);
        }
        assertEquals(0, Database.countWithPrefix(prefix));
    }

    @Test
    void weakSchemesAreRejectedUnlessTheImportAllowsThemAndAreThenCounted() {
        String prefix = uniquePrefix("legacy-weak");
        String body = line(prefix + "md5", "emqx-md5", MD5_PREFIX, Map.of("salt", SALT))
                + line(prefix + "unsalted", "emqx-sha256", SHA256_UNSALTED, Map.of("salt_position", "disable"))
                + line(prefix + "plain", "emqx-plain", PASSWORD, Map.of("salt_position", "disable"))
                + line(prefix + "salted", "emqx-sha256", SHA256_PREFIX, Map.of("salt", SALT));
        Imports.Answer refused = Imports.post(body);
        assertEquals(Map.of(1, LegacyImportLines.WEAK_REFUSED, 2, LegacyImportLines.WEAK_REFUSED, 3,
                LegacyImportLines.WEAK_REFUSED), refused.rejectedReasons());
        assertEquals(1, refused.summary().get("imported").asLong());
        assertTrue(Database.row(prefix + "md5").isEmpty());

        double md5 = written("salted-md5");
        Imports.Answer allowed = Imports.post(body, "?allow_weak_schemes=true");
        assertEquals(3, allowed.summary().get("imported").asLong(), allowed.lines().toString());
        assertEquals(3, allowed.summary().get("weak_hashes").asLong());
        assertEquals(md5 + 1, written("salted-md5"));
        assertStored(prefix + "md5", PasswordScheme.SALTED_MD5);
        assertStored(prefix + "unsalted", PasswordScheme.SHA256);
        assertStored(prefix + "plain", PasswordScheme.PLAIN);
    }

    @Test
    void aBadLineIsRejectedNamingItsFieldAndWritesNothing() {
        String prefix = uniquePrefix("legacy-bad");
        String body = line(prefix + "a", "emqx-pbkdf2", EMQX_PBKDF2_SHA256_4096,
                Map.of("salt", SALT, "mac_fun", "sha256", "iterations", 1_000_000_000)) // 1: beyond the bound
                + line(prefix + "b", "emqx-sha256", "not-hex", Map.of("salt", SALT)) // 2
                + line(prefix + "c", "scrypt", SHA256_PREFIX, Map.of()) // 3
                + line(prefix + "d", "emqx-sha256", SHA256_PREFIX, Map.of("salt_encoding", "utf-8")) // 4
                + line(prefix + "e", "argon2id", ARGON2ID.replace("m=4096", "m=4194304"), Map.of()) // 5: 4 GiB
                + line(prefix + "f", "mosquitto-pbkdf2", MOSQUITTO_PBKDF2, Map.of("salt_encoding", "hex")); // 6
        Imports.Answer answer = Imports.post(body);
        assertEquals(Map.of(1, "invalid_field", 2, "invalid_password_hash", 3, "invalid_field", 4, "unknown_field",
                5, "invalid_password_hash", 6, "invalid_field"), answer.rejectedReasons(), answer.lines().toString());
        assertTrue(message(answer, 1).contains("'iterations'"), message(answer, 1));
        assertTrue(message(answer, 2).contains("'password_hash'"), message(answer, 2));
        assertTrue(message(answer, 4).contains("salt_encoding"), message(answer, 4));
        assertTrue(message(answer, 6).contains("'salt_encoding'"), message(answer, 6));
        assertEquals(0, answer.summary().get("imported").asLong());
        assertEquals(0, Database.countWithPrefix(prefix));
    }

    @Test
    void aBadAllowWeakSchemesValueIsA400BeforeAnythingIsRead() {
        String prefix = uniquePrefix("legacy-badflag");
        Imports.Answer answer = Imports.post(line(prefix + "x", "emqx-md5", MD5_PREFIX, Map.of("salt", SALT)),
                "?allow_weak_schemes=yes");
        assertEquals(400, answer.status());
        assertTrue(answer.lines().get(0).get("message").asText().contains("allow_weak_schemes"));
        assertEquals(0, Database.countWithPrefix(prefix));
    }

    @Test
    void theReportCountsTheFleetBySchemeAndAPutMovesADeviceToBcrypt() {
        String prefix = uniquePrefix("legacy-report");
        Imports.post(line(prefix + "a", "mosquitto-pbkdf2", MOSQUITTO_PBKDF2, Map.of())
                + line(prefix + "b", "mosquitto-pbkdf2", MOSQUITTO_PBKDF2, Map.of()));
        long before = schemes().getOrDefault("pbkdf2-sha512", 0L);
        assertTrue(before >= 2, "both imported rows are counted");

        api().body(passwordBody("a-new-machine-generated-password")).put("/v1/devices/{id}", prefix + "a")
                .then().statusCode(200);
        assertEquals(PasswordScheme.BCRYPT, Database.row(prefix + "a").orElseThrow().passwordScheme());
        assertEquals(before - 1, schemes().get("pbkdf2-sha512"));
        JsonPath next = api().queryParam("limit", 1).queryParam("after", "MDRh").get("/v1/device-reports/weak-hashes")
                .then().statusCode(200).extract().jsonPath();
        assertTrue(next.getMap("$").containsKey("schemes") && next.get("schemes") == null,
                "only the first page counts");
    }

    private Map<String, Long> schemes() {
        Map<String, Integer> counts = api().get("/v1/device-reports/weak-hashes").then().statusCode(200).extract()
                .jsonPath().getMap("schemes", String.class, Integer.class);
        return counts.entrySet().stream().collect(java.util.stream.Collectors.toMap(Map.Entry::getKey,
                entry -> entry.getValue().longValue()));
    }

    private static void assertStored(String clientId, PasswordScheme scheme) {
        DeviceCredential row = Database.row(clientId).orElseThrow();
        assertEquals(scheme, row.passwordScheme());
        assertTrue(StoredPasswords.matches(scheme, PASSWORD, row.passwordHash()), clientId);
        assertFalse(StoredPasswords.matches(scheme, PASSWORD + "x", row.passwordHash()), clientId);
    }

    private static String message(Imports.Answer answer, int line) {
        return answer.ofType("rejected").stream().filter(rejected -> rejected.get("line").asInt() == line)
                .findFirst().orElseThrow().get("message").asText();
    }

    private double written(String scheme) {
        Counter counter = registry.find(LegacyHashes.METRIC).tag("scheme", scheme).counter();
        return counter == null ? 0 : counter.count();
    }

    private static String line(String clientId, String scheme, String hash, Map<String, Object> fields) {
        ObjectNode line = JSON.createObjectNode().put("client_id", clientId).put("password_scheme", scheme)
                .put("password_hash", hash);
        fields.forEach((name, value) -> line.set(name, JSON.valueToTree(value)));
        return line + "\n";
    }
}
