package io.deviceidentity.auth.legacy;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.StoredRows.awaitScheme;
import static io.deviceidentity.auth.support.StoredRows.awaitVerifier;
import static io.deviceidentity.auth.support.StoredRows.passwordHash;
import static io.deviceidentity.auth.support.StoredRows.passwordScheme;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static io.deviceidentity.testsupport.LegacyHashVectors.ARGON2ID;
import static io.deviceidentity.testsupport.LegacyHashVectors.MOSQUITTO_PBKDF2;
import static io.deviceidentity.testsupport.LegacyHashVectors.OTHER_SALT;
import static io.deviceidentity.testsupport.LegacyHashVectors.PASSWORD;
import static io.deviceidentity.testsupport.LegacyHashVectors.SALT;
import static io.deviceidentity.testsupport.LegacyHashVectors.SHA256_PREFIX;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.BcryptSaturation;
import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.legacy.AnchorFormats;
import io.deviceidentity.credentials.legacy.LegacyHash;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.overload.BcryptWork;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.testsupport.MosquittoPasswd;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * Legacy rows (hashes imported as another broker stored them, in the stored form registration-service's import
 * writes) against the real PostgreSQL and PgBouncer: the device logs in with its old password, its row becomes
 * bcrypt at the configured cost (4 in the test profile), and its next login takes the fast path. What is paid is
 * read from the service's metrics, never from timing.
 */
@QuarkusTest
class LegacyLoginTest {

    /** The test profile's fast-path key id and upgrade cost (application.properties, %test). */
    private static final String KEY_ID = "test-1";
    private static final String UPGRADED_PREFIX = "$2b$04$";

    @Inject
    MeterRegistry registry;

    @Inject
    @BcryptWork Lane bcrypt;

    @Test
    void anEmqxSaltedSha256RowLogsInThenIsOnBcryptThenOnTheFastPath() throws Exception {
        loginUpgradeThenFastPath(uniqueId("legacy-emqx"),
                AnchorFormats.emqxSimple("sha256", SHA256_PREFIX, SALT, "prefix"));
    }

    @Test
    void aMosquittoPbkdf2RowLogsInThenIsOnBcryptThenOnTheFastPath() throws Exception {
        loginUpgradeThenFastPath(uniqueId("legacy-mosq"), AnchorFormats.mosquittoPbkdf2(MOSQUITTO_PBKDF2, null));
    }

    @Test
    void aMosquittoPasswdPbkdf2RowLogsInThenIsOnBcryptThenOnTheFastPath() throws Exception {
        loginUpgradeThenFastPath(uniqueId("legacy-mosq7"),
                AnchorFormats.mosquittoPasswd(MosquittoPasswd.hash(MosquittoPasswd.PBKDF2, PASSWORD)));
    }

    @Test
    void aMosquittoPasswdSha512RowLogsInThenIsOnBcryptThenOnTheFastPath() throws Exception {
        loginUpgradeThenFastPath(uniqueId("legacy-mosq6"),
                AnchorFormats.mosquittoPasswd(MosquittoPasswd.hash(MosquittoPasswd.SHA512, PASSWORD)));
    }

    @Test
    void aMosquittoPasswdRowDeniesAWrongPasswordAndStaysAsItWas() throws Exception {
        for (String type : new String[] {MosquittoPasswd.PBKDF2, MosquittoPasswd.SHA512}) {
            String id = uniqueId("legacy-mosq-wrong");
            LegacyHash hash = AnchorFormats.mosquittoPasswd(MosquittoPasswd.hash(type, PASSWORD));
            device(id).legacyHash(hash.scheme(), hash.stored(), PASSWORD).store();
            answeredAs("deny", "bad_password", authn(id, PASSWORD + "x"));
            assertEquals(hash.scheme().column(), passwordScheme(id), type);
            assertEquals(hash.stored(), passwordHash(id), type);
        }
    }

    @Test
    void anArgon2idRowLogsInThenIsOnBcryptThenOnTheFastPath() throws Exception {
        loginUpgradeThenFastPath(uniqueId("legacy-argon2"), AnchorFormats.argon2id(ARGON2ID));
    }

    @Test
    void aWrongPasswordOrAWrongSaltIsDeniedAndTheRowStaysAsItWas() throws Exception {
        String id = uniqueId("legacy-wrong");
        LegacyHash hash = AnchorFormats.emqxSimple("sha256", SHA256_PREFIX, SALT, "prefix");
        device(id).legacyHash(hash.scheme(), hash.stored(), PASSWORD).store();
        answeredAs("deny", "bad_password", authn(id, PASSWORD + "x"));

        String wrongSalt = uniqueId("legacy-wrong-salt");
        LegacyHash salted = AnchorFormats.emqxSimple("sha256", SHA256_PREFIX, OTHER_SALT, "prefix");
        device(wrongSalt).legacyHash(salted.scheme(), salted.stored(), PASSWORD).store();
        answeredAs("deny", "bad_password", authn(wrongSalt, PASSWORD));

        String pbkdf2 = uniqueId("legacy-wrong-pbkdf2");
        LegacyHash mosquitto = AnchorFormats.mosquittoPbkdf2(MOSQUITTO_PBKDF2, null);
        device(pbkdf2).legacyHash(mosquitto.scheme(), mosquitto.stored(), PASSWORD).store();
        answeredAs("deny", "bad_password", authn(pbkdf2, "not-" + PASSWORD));

        assertEquals("salted-sha256", passwordScheme(id));
        assertEquals(hash.stored(), passwordHash(id));
        assertEquals(salted.stored(), passwordHash(wrongSalt));
        assertEquals(mosquitto.stored(), passwordHash(pbkdf2));
    }

    @Test
    void whileBcryptIsBusyTheUpgradeIsDeferredAndALaterLoginDoesIt() throws Exception {
        String id = uniqueId("legacy-deferred");
        LegacyHash hash = AnchorFormats.emqxSimple("sha256", SHA256_PREFIX, SALT, "prefix");
        device(id).legacyHash(hash.scheme(), hash.stored(), PASSWORD).store();
        double deferred = upgrades("deferred");
        double upgraded = upgrades("upgraded");

        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Boolean> held;
        try {
            // The test profile's only bcrypt thread is taken: the executor is not idle, whatever the clock says.
            held = BcryptSaturation.occupyThread(bcrypt, release);
            // A salted digest is verified where the request is: the device is allowed, its upgrade is not started.
            answeredAs("allow", "ok", authn(id, PASSWORD));
            assertEquals(deferred + 1, upgrades("deferred"));
            assertEquals("salted-sha256", passwordScheme(id), "no upgrade while bcrypt is busy");
        } finally {
            release.countDown();
        }
        held.get(30, TimeUnit.SECONDS);

        answeredAs("allow", "ok", authn(id, PASSWORD));
        awaitScheme(id, "bcrypt");
        assertEquals(upgraded + 1, upgrades("upgraded"));
        assertTrue(Bcrypt.matches(PASSWORD, passwordHash(id)));
    }

    private void loginUpgradeThenFastPath(String id, LegacyHash hash) throws Exception {
        device(id).legacyHash(hash.scheme(), hash.stored(), PASSWORD).store();
        double upgraded = upgrades("upgraded");

        answeredAs("allow", "ok", authn(id, PASSWORD));
        awaitScheme(id, "bcrypt");
        String bcryptHash = passwordHash(id);
        assertTrue(bcryptHash.startsWith(UPGRADED_PREFIX), "bcrypt at the configured cost");
        assertTrue(Bcrypt.matches(PASSWORD, bcryptHash));
        assertEquals(upgraded + 1, upgrades("upgraded"));
        awaitVerifier(id, KEY_ID);

        double hashes = hashes();
        answeredAs("allow", "verified", authn(id, PASSWORD));
        assertEquals(hashes, hashes(), "the fast path pays no hash");
        answeredAs("deny", "bad_password", authn(id, PASSWORD + "x"));
    }

    private void answeredAs(String result, String reason, Response answer) {
        assertEquals(200, answer.statusCode(), answer.asString());
        assertEquals(result, answer.jsonPath().getString("result"), answer.asString());
        assertTrue(outcomes(result, reason) > 0, "counted as " + result + " " + reason);
    }

    private double upgrades(String result) {
        Counter counter = registry.find(LegacyUpgrades.METRIC).tag("result", result).counter();
        return counter == null ? 0 : counter.count();
    }

    private double hashes() {
        return registry.get(MetricNames.BCRYPT_DURATION).timer().count();
    }

    private double outcomes(String result, String reason) {
        Counter counter = registry.find(MetricNames.AUTHN_OUTCOMES).tag(MetricNames.TAG_RESULT, result)
                .tag(MetricNames.TAG_REASON, reason).counter();
        return counter == null ? 0 : counter.count();
    }
}
