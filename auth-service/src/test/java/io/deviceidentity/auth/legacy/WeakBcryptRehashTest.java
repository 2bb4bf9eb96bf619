package io.deviceidentity.auth.legacy;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.StoredRows.awaitVerifier;
import static io.deviceidentity.auth.support.StoredRows.passwordHash;
import static io.deviceidentity.auth.support.StoredRows.update;
import static io.deviceidentity.auth.support.StoredRows.verifier;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static io.deviceidentity.testsupport.LegacyHashVectors.PASSWORD;
import static io.deviceidentity.testsupport.LegacyHashVectors.SALT;
import static io.deviceidentity.testsupport.LegacyHashVectors.SHA256_PREFIX;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.BcryptSaturation;
import io.deviceidentity.auth.support.ServiceRole;
import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.credentials.DeviceStatus;
import io.deviceidentity.credentials.legacy.AnchorFormats;
import io.deviceidentity.credentials.legacy.LegacyHash;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.overload.BcryptWork;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.Lane;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/**
 * A bcrypt row below the service's cost (an old store's weak hashes) against the real PostgreSQL and PgBouncer: its
 * successful slow-path login re-hashes it at {@code identity.auth.legacy.upgrade-cost} (5 here, so the tests' usual
 * cost-4 rows are the weak ones) through the same write-behind and compare-and-set as a legacy upgrade, counted in
 * {@value LegacyUpgrades#REHASH_METRIC}; a refused login, a busy bcrypt, a row at the cost, a row replaced or revoked
 * meanwhile are left as they are. What is paid is read from the metrics, never from timing.
 */
@QuarkusTest
@TestProfile(WeakBcryptRehashTest.UpgradeCostFive.class)
class WeakBcryptRehashTest {

    public static class UpgradeCostFive implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("identity.auth.legacy.upgrade-cost", "5");
        }
    }

    private static final String KEY_ID = "test-1";
    private static final String CALL = "SELECT strengthen_bcrypt_password(?, ?, ?)";
    private static final String INVALID_PARAMETER = "22023";

    @Inject
    MeterRegistry registry;

    @Inject
    @BcryptWork Lane bcrypt;

    @Inject
    LegacyUpgrades upgrades;

    @Inject
    UpgradeWriter writer;

    @Test
    void aCost4RowIsRehashedAtTheServiceCostByItsLoginThenTakesTheFastPath() throws Exception {
        String id = uniqueId("rehash");
        device(id).password(PASSWORD).cost(4).store();
        double upgraded = rehashes("upgraded");

        assertEquals("allow", authn(id, PASSWORD).jsonPath().getString("result"));
        String rehashed = awaitCost(id, "05");
        assertTrue(Bcrypt.matches(PASSWORD, rehashed));
        assertEquals(upgraded + 1, rehashes("upgraded"));
        awaitVerifier(id, KEY_ID);

        double hashes = hashes();
        assertEquals("allow", authn(id, PASSWORD).jsonPath().getString("result"));
        assertEquals(hashes, hashes(), "the fast path pays no hash");
        assertEquals(rehashed, passwordHash(id));
    }

    @Test
    void aWrongPasswordOrARowAtTheServiceCostIsNotRehashed() throws Exception {
        String weak = uniqueId("rehash-wrong");
        device(weak).password(PASSWORD).cost(4).store();
        String weakHash = passwordHash(weak);
        String strong = uniqueId("rehash-at-cost");
        device(strong).password(PASSWORD).cost(5).store();
        String strongHash = passwordHash(strong);
        double started = rehashes("upgraded") + rehashes("deferred");

        assertEquals("deny", authn(weak, PASSWORD + "x").jsonPath().getString("result"));
        assertEquals("allow", authn(strong, PASSWORD).jsonPath().getString("result"));
        awaitVerifier(strong, KEY_ID);
        assertEquals(started, rehashes("upgraded") + rehashes("deferred"), "no re-hash was even considered");
        assertEquals(weakHash, passwordHash(weak));
        assertEquals(strongHash, passwordHash(strong));
    }

    @Test
    void whileBcryptIsBusyTheRehashIsDeferred() throws Exception {
        String id = uniqueId("rehash-busy");
        device(id).password(PASSWORD).cost(4).store();
        DeviceCredential read = row(id);
        double deferred = rehashes("deferred");
        CountDownLatch release = new CountDownLatch(1);
        CompletableFuture<Boolean> held;
        try {
            held = BcryptSaturation.occupyThread(bcrypt, release);
            assertFalse(upgrades.upgrade(read, null, PASSWORD, PASSWORD.getBytes(StandardCharsets.UTF_8),
                    Deadline.after(System.nanoTime(), Duration.ofSeconds(4))), "not started");
            assertEquals(deferred + 1, rehashes("deferred"));
        } finally {
            release.countDown();
        }
        held.get(30, TimeUnit.SECONDS);
        assertEquals(read.passwordHash(), passwordHash(id));
    }

    @Test
    void aRowReplacedOrRevokedSinceItWasVerifiedIsNeverOverwritten() {
        String replaced = uniqueId("rehash-replaced");
        device(replaced).password(PASSWORD).cost(4).store();
        DeviceCredential readBeforePut = row(replaced);
        String put = Bcrypt.hash("a-new-password-given-by-put", 4);
        update("UPDATE device_credentials SET password_hash = ? WHERE client_id = ?", put, replaced);

        String revoked = uniqueId("rehash-revoked");
        device(revoked).password(PASSWORD).cost(4).store();
        DeviceCredential readBeforeRevocation = row(revoked);
        update("UPDATE device_credentials SET status = 'revoked' WHERE client_id = ?", revoked);

        double stale = rehashes("stale");
        byte[] bytes = PASSWORD.getBytes(StandardCharsets.UTF_8);
        String rehash = Bcrypt.hash(PASSWORD, 5);
        assertFalse(writer.write(new UpgradeWriter.Upgrade(UpgradeKind.WEAK_BCRYPT, readBeforePut, null, bytes,
                rehash)));
        assertFalse(writer.write(new UpgradeWriter.Upgrade(UpgradeKind.WEAK_BCRYPT, readBeforeRevocation, null,
                bytes, rehash)));
        assertEquals(stale + 2, rehashes("stale"));
        assertEquals(put, passwordHash(replaced));
        assertEquals(readBeforeRevocation.passwordHash(), passwordHash(revoked));
        assertNull(verifier(replaced), "no verifier for a hash that was not stored");
    }

    @Test
    void theFunctionOnlyEverMakesAnActiveBcryptRowStronger() throws Exception {
        String weak = uniqueId("strengthen");
        device(weak).password(PASSWORD).cost(5).store();
        String stored = passwordHash(weak);
        String legacy = uniqueId("strengthen-legacy");
        LegacyHash legacyHash = AnchorFormats.emqxSimple("sha256", SHA256_PREFIX, SALT, "prefix");
        device(legacy).legacyHash(legacyHash.scheme(), legacyHash.stored(), PASSWORD).store();
        try (Connection auth = ServiceRole.connection()) {
            assertFalse(strengthen(auth, weak, stored, Bcrypt.hash("attacker-chosen", 5)), "not at the same cost");
            assertFalse(strengthen(auth, weak, stored, Bcrypt.hash("attacker-chosen", 4)), "never weaker");
            assertFalse(strengthen(auth, legacy, legacyHash.stored(), Bcrypt.hash(PASSWORD, 6)),
                    "a legacy row is upgrade_legacy_password's");
            SQLException notBcrypt = assertThrows(SQLException.class,
                    () -> strengthen(auth, weak, stored, "plain-text"));
            assertEquals(INVALID_PARAMETER, notBcrypt.getSQLState());
            assertTrue(strengthen(auth, weak, stored, Bcrypt.hash(PASSWORD, 6)), "stronger, as verified");
        }
        assertEquals(legacyHash.stored(), passwordHash(legacy));
        assertTrue(passwordHash(weak).startsWith("$2b$06$"));
    }

    private static DeviceCredential row(String id) {
        return new DeviceCredential(id, null, passwordHash(id), DeviceStatus.ACTIVE, false, List.of(), null, null,
                null);
    }

    private static String awaitCost(String id, String cost) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < until) {
            String hash = passwordHash(id);
            if (hash.substring(4, 6).equals(cost)) {
                return hash;
            }
            Thread.sleep(10);
        }
        throw new AssertionError(id + " was never re-hashed at cost " + cost);
    }

    private static boolean strengthen(Connection connection, String id, String verified, String bcryptHash)
            throws SQLException {
        return ServiceRole.replaceHash(connection, CALL, id, verified, bcryptHash);
    }

    private double rehashes(String result) {
        Counter counter = registry.find(LegacyUpgrades.REHASH_METRIC).tag("result", result).counter();
        return counter == null ? 0 : counter.count();
    }

    private double hashes() {
        return registry.get(MetricNames.BCRYPT_DURATION).timer().count();
    }
}
