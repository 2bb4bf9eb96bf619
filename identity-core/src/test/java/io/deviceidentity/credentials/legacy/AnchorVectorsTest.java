package io.deviceidentity.credentials.legacy;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;

import org.junit.jupiter.api.Test;

/**
 * Vectors made by other implementations than ours, converted from the anchor's export form, stored, parsed back and
 * verified: the right password matches; a wrong password, a wrong salt or a wrong position does not.
 *
 * <p>Produced with (password {@value #PASSWORD}, salt {@value #SALT}, an EMQX-style 32-hex-character salt):
 * <pre>
 * printf '%s' "$SALT$PW" | openssl dgst -sha256 -r        # EMQX sha256, salt_position prefix
 * printf '%s' "$PW$SALT" | openssl dgst -sha512 -r        # EMQX sha512, suffix
 * printf '%s' "$SALT$PW" | openssl dgst -sha1 -r / -md5    # EMQX sha / md5, prefix
 * printf '%s' "$PW" | openssl dgst -sha256 -r              # EMQX sha256, disable
 * python3: hashlib.pbkdf2_hmac('sha256', pw, salt, 4096).hex()          # EMQX pbkdf2 sha256
 * python3: hashlib.pbkdf2_hmac('sha512', pw, salt, 1000, 20).hex()      # EMQX pbkdf2 sha512 dk_length 20
 *          (the same key from `openssl kdf -kdfopt digest:SHA512 ... PBKDF2`)
 * python3: "PBKDF2$sha512$100000$" + b64(salt16) + "$" + b64(pbkdf2_hmac('sha512', pw, salt16, 100000, 32))
 * printf '%s' "$PW" | argon2 saltsaltsalt1234 -id -t 3 -k 4096 -p 2 -l 32 -e   # Debian's argon2 (reference C)
 * </pre>
 */
class AnchorVectorsTest {

    static final String PASSWORD = "correct-horse-7f3a";
    static final String SALT = "a3f1c2e4b5d6978800112233445566aa";
    private static final String OTHER_SALT = "a3f1c2e4b5d6978800112233445566ab";

    static final String SHA256_PREFIX = "7e8bf6fd5e103a18d3efd8f79385773b723819a10912528034a7fae0fb779b0c";
    static final String SHA512_SUFFIX = "5d5c7cb48e0734e52d95c1ff345923cbd3893895c24d86cfa4bbf692bda2c787"
            + "92412948bce66758f297969a32bef84d4a0d748fde845bfbe9f5cc884d30762a";
    static final String SHA1_PREFIX = "e9b13e338993e9d5a9382b0c72da84cf4bfbdaf1";
    static final String MD5_PREFIX = "4824f96eb59e080e26469ec2b0f22d9b";
    static final String SHA256_UNSALTED = "965be3c68ace4c0cc6f7714285b0db2033c1c88988d4e70fff54e5d476a64f10";
    static final String EMQX_PBKDF2_SHA256_4096 = "6e61ba7dc3847f09427c341420fcf52bc6144547ee3c90406d03f55d308ea8d7";
    static final String EMQX_PBKDF2_SHA512_1000_DK20 = "054d5944301ccc98620b0292d797411564e50041";
    static final String MOSQUITTO_PBKDF2 =
            "PBKDF2$sha512$100000$Xwx6k+IdS2igw/nh0ntMVQ==$dvSfmSn4+NAEOSkv19NldKzExDp3FQmu8oV+s3D7hO8=";
    static final String MOSQUITTO_PBKDF2_UTF8_SALT =
            "PBKDF2$sha256$1000$utf8saltvalue$MmpD3w+FeXxqAXpIUtXt+DMCUuh2SSFWwyoSKg1TCkw=";
    static final String ARGON2ID =
            "$argon2id$v=19$m=4096,t=3,p=2$c2FsdHNhbHRzYWx0MTIzNA$Xfm1TYHjrFTxA4OD45mN6OD1FEHgmdITlN2SiG2L/gI";
    /**
     * Copied from mosquitto-go-auth's own test suite (iegomez/mosquitto-go-auth {@code hashing/hashing_test.go},
     * "PHC-SF-Spec", password {@code test-password}).
     */
    static final String MOSQUITTO_PHC_FROM_ITS_TESTS =
            "$pbkdf2-sha512$i=10000,l=32$/DsNR8DBuoF/MxzLY+QVaw$YNfYNfT+6yT2blLrXKKR8Ll+aesgHYqSOtFTBsyscRM";

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
