package io.deviceidentity.auth.fastpath;

import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.sql.Statement;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.ServiceRole;
import io.quarkus.test.junit.QuarkusTest;

/**
 * auth-service's database role, through the real PgBouncer with the service's own credentials: it reads credentials
 * and writes verifiers, and PostgreSQL refuses everything else (42501), so a compromised auth-service cannot change
 * a password, a status or an ACL, nor add or remove a device. (A @QuarkusTest so the schema is migrated first.)
 */
@QuarkusTest
class AuthRolePrivilegesTest {

    private static final String INSUFFICIENT_PRIVILEGE = "42501";

    @Test
    void theServicesRoleCannotChangeAPasswordAStatusOrAnAclNorAddOrRemoveADevice() throws Exception {
        assertEquals("identity_auth", ServiceRole.user());
        String id = uniqueId("privileges");
        device(id).store();
        try (Connection auth = ServiceRole.connection()) {
            refused(auth, "UPDATE device_credentials SET password_hash = '$2a$04$x' WHERE client_id = ?", id);
            refused(auth, "UPDATE device_credentials SET status = 'active' WHERE client_id = ?", id);
            refused(auth, "UPDATE device_credentials SET acl = NULL, superuser = true WHERE client_id = ?", id);
            refused(auth, "DELETE FROM device_credentials WHERE client_id = ?", id);
            refused(auth, "INSERT INTO device_credentials (client_id, password_hash) VALUES (? || '-x', 'x')", id);
            try (Statement ddl = auth.createStatement()) {
                SQLException refusal = assertThrows(SQLException.class,
                        () -> ddl.execute("ALTER TABLE device_credentials DROP COLUMN verifier"));
                assertEquals(INSUFFICIENT_PRIVILEGE, refusal.getSQLState());
            }
            try (PreparedStatement write = auth.prepareStatement(
                    "UPDATE device_credentials SET verifier_key_id = NULL, verifier = NULL WHERE client_id = ?")) {
                write.setString(1, id);
                assertEquals(1, write.executeUpdate(), "writing verifiers is what the role is for");
            }
        }
    }

    @Test
    void theServicesRoleKeepsFailureCountsAndReadsEpochsButCannotBumpAnEpochNorChangeTheTables() throws Exception {
        String id = uniqueId("budget-privileges");
        try (Connection auth = ServiceRole.connection()) {
            try (PreparedStatement count = auth.prepareStatement("INSERT INTO authn_failures"
                    + " (client_id, source, window_start, failures) VALUES (?, '*', 1, 1)"
                    + " ON CONFLICT (client_id, window_start, source) DO UPDATE SET failures = authn_failures.failures + 1")) {
                count.setString(1, id);
                assertEquals(1, count.executeUpdate(), "counting failures is what the role is for");
            }
            try (PreparedStatement forget = auth.prepareStatement(
                    "DELETE FROM authn_failures WHERE client_id = ? AND window_start < 2")) {
                forget.setString(1, id);
                assertEquals(1, forget.executeUpdate(), "and forgetting ended windows");
            }
            try (Statement read = auth.createStatement()) {
                read.executeQuery("SELECT bucket, epoch FROM registration_epochs").close();
            }
            refused(auth, "UPDATE registration_epochs SET epoch = epoch + 1 WHERE bucket::text <> ?", id);
            refused(auth, "INSERT INTO registration_epochs (bucket, epoch) SELECT 0, length(?)", id);
            refused(auth, "DELETE FROM registration_epochs WHERE bucket::text <> ?", id);
            for (String ddl : new String[] {"ALTER TABLE authn_failures DROP COLUMN failures",
                    "TRUNCATE authn_failures", "DROP TRIGGER device_credentials_bump_epoch ON device_credentials"}) {
                try (Statement statement = auth.createStatement()) {
                    SQLException refusal = assertThrows(SQLException.class, () -> statement.execute(ddl), ddl);
                    assertEquals(INSUFFICIENT_PRIVILEGE, refusal.getSQLState(), ddl);
                }
            }
        }
    }

    private static void refused(Connection connection, String sql, String id) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(sql)) {
            statement.setString(1, id);
            SQLException refusal = assertThrows(SQLException.class, statement::executeUpdate, sql);
            assertEquals(INSUFFICIENT_PRIVILEGE, refusal.getSQLState(), sql);
        }
    }
}
