package io.deviceidentity.credentials.legacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import static io.deviceidentity.testsupport.LegacyHashVectors.ARGON2ID;
import static io.deviceidentity.testsupport.LegacyHashVectors.EMQX_PBKDF2_SHA256_4096;
import static io.deviceidentity.testsupport.LegacyHashVectors.EMQX_PBKDF2_SHA512_1000_DK20;
import static io.deviceidentity.testsupport.LegacyHashVectors.MD5_PREFIX;
import static io.deviceidentity.testsupport.LegacyHashVectors.MOSQUITTO_PBKDF2;
import static io.deviceidentity.testsupport.LegacyHashVectors.MOSQUITTO_PBKDF2_UTF8_SALT;
import static io.deviceidentity.testsupport.LegacyHashVectors.MOSQUITTO_PHC_FROM_ITS_TESTS;
import static io.deviceidentity.testsupport.LegacyHashVectors.OTHER_SALT;
import static io.deviceidentity.testsupport.LegacyHashVectors.PASSWORD;
import static io.deviceidentity.testsupport.LegacyHashVectors.SALT;
import static io.deviceidentity.testsupport.LegacyHashVectors.SHA1_PREFIX;
import static io.deviceidentity.testsupport.LegacyHashVectors.SHA256_PREFIX;
import static io.deviceidentity.testsupport.LegacyHashVectors.SHA256_UNSALTED;
import static io.deviceidentity.testsupport.LegacyHashVectors.SHA512_SUFFIX;

import org.junit.jupiter.api.Test;

import io.deviceidentity.testsupport.LegacyHashVectors;

/**
 * Vectors made by other implementations than ours ({@link LegacyHashVectors}: openssl, Python's hashlib, Debian's
 * argon2, mosquitto-go-auth's own tests), converted from the anchor's export form, stored, parsed back and verified:
 * the right password matches; a wrong password, a wrong salt or a wrong position does not.
 */
class AnchorVectorsTest {

    @Test
    void emqxSaltedSha256PrefixMatchesOnlyItsPasswordAndSalt() {
        assertVerifies(AnchorFormats.emqxSimple("sha256", SHA256_PREFIX, SALT, "prefix"),
                PasswordScheme.SALTED_SHA256);
        assertFalse(matches(AnchorFormats.emqxSimple("sha256", SHA256_PREFIX, OTHER_SALT, "prefix"), PASSWORD));
        assertFalse(matches(AnchorFormats.emqxSimple("sha256", SHA256_PREFIX, SALT, "suffix"), PASSWORD));
    }

    @Test
    void emqxDefaultsToPrefixAndReadsHexInEitherCase() {
        LegacyHash hash = AnchorFormats.emqxSimple("sha256", SHA256_PREFIX.toUpperCase(), SALT, null);
        assertVerifies(hash, PasswordScheme.SALTED_SHA256);
    }

    @Test
    void emqxOtherSimpleAlgorithms() {
        assertVerifies(AnchorFormats.emqxSimple("sha512", SHA512_SUFFIX, SALT, "suffix"),
                PasswordScheme.SALTED_SHA512);
        assertVerifies(AnchorFormats.emqxSimple("sha", SHA1_PREFIX, SALT, "prefix"), PasswordScheme.SALTED_SHA1);
        assertVerifies(AnchorFormats.emqxSimple("md5", MD5_PREFIX, SALT, "prefix"), PasswordScheme.SALTED_MD5);
        assertVerifies(AnchorFormats.emqxSimple("sha256", SHA256_UNSALTED, SALT, "disable"), PasswordScheme.SHA256);
        assertVerifies(AnchorFormats.emqxSimple("sha256", SHA256_UNSALTED, "", "prefix"), PasswordScheme.SHA256);
        assertVerifies(AnchorFormats.emqxSimple("plain", SALT + PASSWORD, SALT, "prefix"), PasswordScheme.PLAIN);
        assertVerifies(AnchorFormats.emqxSimple("plain", PASSWORD, null, "disable"), PasswordScheme.PLAIN);
    }

    @Test
    void plainIsComparedExactlyAsEmqxDoes() {
        assertFalse(matches(AnchorFormats.emqxSimple("plain", PASSWORD.toUpperCase(), null, "disable"), PASSWORD));
    }

    @Test
    void emqxPbkdf2WithDefaultAndExplicitKeyLength() {
        assertVerifies(AnchorFormats.emqxPbkdf2(EMQX_PBKDF2_SHA256_4096, SALT, "sha256", 4096, null),
                PasswordScheme.PBKDF2_SHA256);
        assertVerifies(AnchorFormats.emqxPbkdf2(EMQX_PBKDF2_SHA512_1000_DK20, SALT, "sha512", 1000, 20),
                PasswordScheme.PBKDF2_SHA512);
        assertFalse(matches(AnchorFormats.emqxPbkdf2(EMQX_PBKDF2_SHA256_4096, OTHER_SALT, "sha256", 4096, null),
                PASSWORD));
        assertFalse(matches(AnchorFormats.emqxPbkdf2(EMQX_PBKDF2_SHA256_4096, SALT, "sha256", 4095, null),
                PASSWORD));
    }

    @Test
    void mosquittoPbkdf2Strings() {
        assertVerifies(AnchorFormats.mosquittoPbkdf2(MOSQUITTO_PBKDF2, null), PasswordScheme.PBKDF2_SHA512);
        assertVerifies(AnchorFormats.mosquittoPbkdf2(MOSQUITTO_PBKDF2_UTF8_SALT, "utf-8"),
                PasswordScheme.PBKDF2_SHA256);
        LegacyHash fromItsTests = AnchorFormats.mosquittoPbkdf2(MOSQUITTO_PHC_FROM_ITS_TESTS, "base64");
        assertTrue(matches(fromItsTests, "test-password"));
        assertFalse(matches(fromItsTests, "other"));
    }

    @Test
    void mosquittoSaltEncodingMustBeTheOneThePluginUsed() {
        // The same string read with the other salt encoding is another salt: no match (never a guess).
        assertFalse(matches(AnchorFormats.mosquittoPbkdf2(MOSQUITTO_PBKDF2, "utf-8"), PASSWORD));
    }

    @Test
    void argon2idPhcStringFromTheReferenceImplementation() {
        assertVerifies(AnchorFormats.argon2id(ARGON2ID), PasswordScheme.ARGON2ID);
        String otherSalt = ARGON2ID.replace("c2FsdHNhbHRzYWx0MTIzNA", "c2FsdHNhbHRzYWx0MTIzNQ");
        assertFalse(matches(AnchorFormats.argon2id(otherSalt), PASSWORD));
    }

    @Test
    void parametersBeyondTheLimitsAreRefusedNamingTheField() {
        assertField("iterations", () -> AnchorFormats.emqxPbkdf2(EMQX_PBKDF2_SHA256_4096, SALT, "sha256",
                1_000_000_000, null));
        assertField("password_hash", () -> AnchorFormats.mosquittoPbkdf2(
                "PBKDF2$sha512$1000000000$Xwx6k+IdS2igw/nh0ntMVQ==$dvSfmSn4+NAEOSkv19NldKzExDp3FQmu8oV+s3D7hO8=",
                null));
        assertField("password_hash", () -> AnchorFormats.argon2id(
                ARGON2ID.replace("m=4096", "m=4194304")));
        assertField("password_hash", () -> AnchorFormats.argon2id(ARGON2ID.replace("t=3", "t=100000")));
        assertField("password_hash", () -> AnchorFormats.argon2id(ARGON2ID.replace("v=19", "v=16")));
    }

    @Test
    void malformedHashesAreRefusedNamingTheField() {
        assertField("password_hash", () -> AnchorFormats.emqxSimple("sha256", "not hex", SALT, "prefix"));
        assertField("password_hash", () -> AnchorFormats.emqxSimple("sha256", MD5_PREFIX, SALT, "prefix"));
        assertField("salt_position", () -> AnchorFormats.emqxSimple("sha256", SHA256_PREFIX, SALT, "middle"));
        assertField("mac_fun", () -> AnchorFormats.emqxPbkdf2(EMQX_PBKDF2_SHA256_4096, SALT, "md5", 4096, null));
        assertField("dk_length", () -> AnchorFormats.emqxPbkdf2(EMQX_PBKDF2_SHA256_4096, SALT, "sha256", 4096, 20));
        assertField("password_hash", () -> AnchorFormats.mosquittoPbkdf2(
                MOSQUITTO_PBKDF2.replace("sha512", "sha1"), null));
        assertField("salt_encoding", () -> AnchorFormats.mosquittoPbkdf2(MOSQUITTO_PBKDF2, "hex"));
        assertField("password_hash", () -> AnchorFormats.argon2id("$argon2i$v=19$m=4096,t=3,p=2$c2FsdA$aGFzaA"));
    }

    @Test
    void unknownOrUnparseableStoredRowsNeverMatch() {
        assertFalse(StoredPasswords.matches(null, PASSWORD, "anything"));
        assertFalse(StoredPasswords.matches(PasswordScheme.PBKDF2_SHA512, PASSWORD, "2000000$AAAA$AAAA"));
        assertFalse(StoredPasswords.matches(PasswordScheme.SALTED_SHA256, PASSWORD, "garbage"));
    }

    @Test
    void weakSchemesAreTheOnesWithoutSaltOrWithoutHash() {
        assertTrue(PasswordScheme.PLAIN.weak());
        assertTrue(PasswordScheme.SALTED_MD5.weak());
        assertTrue(PasswordScheme.SHA256.weak());
        assertFalse(PasswordScheme.SALTED_SHA256.weak());
        assertFalse(PasswordScheme.PBKDF2_SHA512.weak());
        assertFalse(PasswordScheme.ARGON2ID.weak());
    }

    private static void assertVerifies(LegacyHash imported, PasswordScheme scheme) {
        assertEquals(scheme, imported.scheme());
        // What the database holds is what auth-service verifies: round trip through the stored form.
        assertTrue(StoredPasswords.matches(scheme, PASSWORD, imported.stored()), scheme.column() + " right password");
        assertFalse(StoredPasswords.matches(scheme, PASSWORD + "x", imported.stored()), scheme.column() + " wrong");
        assertFalse(StoredPasswords.matches(scheme, "Correct-horse-7f3a", imported.stored()), scheme.column());
    }

    private static boolean matches(LegacyHash hash, String password) {
        return hash.matches(password.getBytes(StandardCharsets.UTF_8));
    }

    private static void assertField(String field, Runnable conversion) {
        InvalidHashException refused = assertThrows(InvalidHashException.class, conversion::run);
        assertEquals(field, refused.field(), refused.getMessage());
    }
}
