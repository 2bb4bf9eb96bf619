package io.deviceidentity.auth.legacy;

import static io.deviceidentity.auth.support.StoredRows.passwordHash;
import static io.deviceidentity.auth.support.StoredRows.passwordScheme;
import static io.deviceidentity.auth.support.StoredRows.update;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static io.deviceidentity.testsupport.LegacyHashVectors.PASSWORD;
import static io.deviceidentity.testsupport.LegacyHashVectors.SALT;
import static io.deviceidentity.testsupport.LegacyHashVectors.SHA256_PREFIX;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.ServiceRole;
import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.credentials.DeviceStatus;
import io.deviceidentity.credentials.legacy.AnchorFormats;
import io.deviceidentity.credentials.legacy.LegacyHash;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The narrow path by which auth-service replaces a password hash ({@code upgrade_legacy_password}, V6), as
 * auth-service's own role through the real PgBouncer: it upgrades a legacy row whose hash is unchanged, exactly once
 * when two replicas try at the same moment, and nothing else; the role still cannot write a hash directly.
 */
@QuarkusTest
class UpgradeFunctionTest {

    private static final String INSUFFICIENT_PRIVILEGE = "42501";
    private static final String INVALID_PARAMETER = "22023";
    private static final String CALL = "SELECT upgrade_legacy_password(?, ?, ?)";

    @Inject
    UpgradeWriter writer;

    @Test
    void twoReplicasUpgradingOneRowAtTheSameMomentReplaceItExactlyOnce() throws Exception {
        String id = uniqueId("upgrade-race");
        LegacyHash legacy = legacyDevice(id);
        String first = Bcrypt.hash(PASSWORD, 4);
        String second = Bcrypt.hash(PASSWORD, 4);
        try (Connection replicaA = ServiceRole.connection(); Connection replicaB = ServiceRole.connection()) {
            replicaA.setAutoCommit(false);
            assertTrue(upgrade(replicaA, id, legacy.stored(), first), "the first replica replaces the legacy hash");
            // The second replica verified the same legacy hash; its call waits for the first one's row lock (or
            // runs after its commit), and either way finds the row no longer legacy.
            CompletableFuture<Boolean> other = CompletableFuture.supplyAsync(() -> {
                try {
                    return upgrade(replicaB, id, legacy.stored(), second);
                } catch (SQLException e) {
                    throw new IllegalStateException(e);
                }
            });
            replicaA.commit();
            assertFalse(other.get(30, TimeUnit.SECONDS), "the second replica's upgrade finds nothing to replace");
        }
        assertEquals("bcrypt", passwordScheme(id));
        assertEquals(first, passwordHash(id));
    }

    @Test
    void theServicesWriterCountsALostRaceAsStale() {
        String id = uniqueId("upgrade-stale");
        LegacyHash legacy = legacyDevice(id);
        DeviceCredential read = new DeviceCredential(id, null, legacy.stored(), DeviceStatus.ACTIVE, false,
                java.util.List.of(), null, null, null, legacy.scheme());
        byte[] bytes = PASSWORD.getBytes(java.nio.charset.StandardCharsets.UTF_8);
        String mine = Bcrypt.hash(PASSWORD, 4);
        assertTrue(writer.write(new UpgradeWriter.Upgrade(UpgradeKind.LEGACY, read, null, bytes, mine)));
        assertFalse(writer.write(new UpgradeWriter.Upgrade(UpgradeKind.LEGACY, read, null, bytes,
                Bcrypt.hash(PASSWORD, 4))));
        assertEquals(mine, passwordHash(id));
    }

    @Test
    void theFunctionSetsNoHashOnABcryptRowNorAnythingButBcryptNorOnAChangedOrRevokedRow() throws Exception {
        String bcryptRow = uniqueId("upgrade-bcrypt-row");
        device(bcryptRow).password(PASSWORD).store();
        String stored = passwordHash(bcryptRow);
        String changed = uniqueId("upgrade-changed");
        legacyDevice(changed);
        String revoked = uniqueId("upgrade-revoked");
        LegacyHash legacy = legacyDevice(revoked);
        update("UPDATE device_credentials SET status = 'revoked' WHERE client_id = ?", revoked);
        String chosen = Bcrypt.hash("attacker-chosen", 4);
        try (Connection auth = ServiceRole.connection()) {
            assertFalse(upgrade(auth, bcryptRow, stored, chosen), "a bcrypt row is never replaced");
            assertEquals(stored, passwordHash(bcryptRow));
            assertFalse(upgrade(auth, changed, "prefix$AAAA$AAAA", chosen), "only the hash that was verified");
            assertFalse(upgrade(auth, revoked, legacy.stored(), chosen), "never a revoked device");
            SQLException notBcrypt = assertThrows(SQLException.class,
                    () -> upgrade(auth, changed, legacy.stored(), "plain-text"));
            assertEquals(INVALID_PARAMETER, notBcrypt.getSQLState());
        }
        assertEquals("salted-sha256", passwordScheme(changed));
        assertEquals(legacy.stored(), passwordHash(changed));
    }

    @Test
    void theServicesRoleStillCannotWriteAHashOrASchemeDirectly() throws Exception {
        String id = uniqueId("upgrade-direct");
        LegacyHash legacy = legacyDevice(id);
        try (Connection auth = ServiceRole.connection()) {
            for (String sql : new String[] {
                    "UPDATE device_credentials SET password_hash = '" + Bcrypt.hash("x", 4) + "' WHERE client_id = ?",
                    "UPDATE device_credentials SET password_scheme = 'bcrypt' WHERE client_id = ?"}) {
                try (PreparedStatement write = auth.prepareStatement(sql)) {
                    write.setString(1, id);
                    SQLException refused = assertThrows(SQLException.class, write::executeUpdate);
                    assertEquals(INSUFFICIENT_PRIVILEGE, refused.getSQLState(), sql);
                }
            }
        }
        assertEquals(legacy.stored(), passwordHash(id));
    }

    private static LegacyHash legacyDevice(String id) {
        LegacyHash hash = AnchorFormats.emqxSimple("sha256", SHA256_PREFIX, SALT, "prefix");
        device(id).legacyHash(hash.scheme(), hash.stored(), PASSWORD).store();
        return hash;
    }

    private static boolean upgrade(Connection connection, String id, String verified, String bcryptHash)
            throws SQLException {
        return ServiceRole.replaceHash(connection, CALL, id, verified, bcryptHash);
    }
}
