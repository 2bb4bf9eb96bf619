package io.deviceidentity.registration.devices;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import jakarta.enterprise.context.ApplicationScoped;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.credentials.CredentialRows;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.credentials.DeviceStatus;
import io.deviceidentity.overload.DatabaseGuard;
import io.deviceidentity.overload.DatabaseGuardConfig;
import io.deviceidentity.overload.PooledConnections;
import io.deviceidentity.registration.kicks.KickOutbox;
import io.deviceidentity.registration.kicks.KickWorker;

/**
 * Writes device credential rows, through PgBouncer (reads go through identity-core's CredentialFinder). Each operation takes one pooled connection, runs one statement (which
 * PostgreSQL runs as its own transaction) and returns the connection before the method returns: no operation ever
 * asks the pool for a second connection while holding one (the incident's deadlock), and nothing CPU-heavy happens
 * while a connection is held (the hash arrives ready-made).
 *
 * <p>Each write has its own {@link DatabaseGuard} ({@value #SAVE_BREAKER}, {@value #REVOKE_BREAKER}): a circuit
 * breaker that opens only when the database fails, never on overload or a pool that had no connection to lend in
 * time ({@link PooledConnections}), so "open" keeps meaning "database down" and is answered at once with
 * {@code backend_unavailable}; and a timeout above the driver's socket timeout ({@code identity.database-guard.*}
 * sets the numbers).
 *
 * <p>With an EMQX API configured ({@link KickWorker#enabled()}), a revocation and a replacement also record, in the
 * same statement, a kick of the device's live session ({@link KickOutbox#recordKicks}), which the worker
 * delivers after the commit. Without one, nothing is recorded: a kick kept for an EMQX configured later would end
 * sessions opened long after the change, with the device's new credentials.
 */
@ApplicationScoped
public class DeviceStore {

    /** Create-or-replace's circuit breaker and timeout ({@link DatabaseGuard}), under the name operators see. */
    static final String SAVE_BREAKER = "device-store-save";

    /** Revocation's circuit breaker and timeout ({@link DatabaseGuard}), under the name operators see. */
    static final String REVOKE_BREAKER = "device-store-revoke";

    /**
     * Create or replace in one statement: concurrent PUTs of one device serialize on its row and none fails on the
     * primary key, so retries never duplicate. {@code xmax = 0} holds only for a freshly inserted row version, which
     * tells a creation (201) from a replacement (200). Replacing re-activates a revoked device and keeps
     * {@code created_at}. Replacing also clears auth-service's fast-path verifier: it no longer matches the new
     * hash anyway (new salt), and clearing it keeps a stale one from being mistaken for a live one by a reader.
     */
    private static final String UPSERT = "INSERT INTO device_credentials"
            + " (client_id, username, password_hash, password_scheme, status, superuser, acl)"
            + " VALUES (?, ?, ?, 'bcrypt', 'active', ?, ?::jsonb)"
            + " ON CONFLICT (client_id) DO UPDATE SET username = EXCLUDED.username,"
            + " password_hash = EXCLUDED.password_hash, password_scheme = 'bcrypt', status = 'active',"
            + " superuser = EXCLUDED.superuser,"
            + " acl = EXCLUDED.acl, verifier_key_id = NULL, verifier = NULL, updated_at = now()"
            + " RETURNING (xmax = 0) AS inserted, created_at, updated_at, client_id";

    /**
     * The same upsert, and in the same statement (so the same transaction) a kick of the device's live session when
     * the PUT replaced an existing device (new password, ACL or superuser flag: a session keeps what it was given at
     * login). A data-modifying WITH runs once whether or not the outer query reads it (PostgreSQL, "Data-Modifying
     * Statements in WITH").
     */
    private static final String UPSERT_AND_KICK = "WITH saved AS (" + UPSERT + "),"
            + KickOutbox.recordKicks("saved", KickOutbox.Reason.REKEYED, "NOT inserted")
            + " SELECT inserted, created_at, updated_at FROM saved";

    private static final String REVOKE = "UPDATE device_credentials SET status = 'revoked',"
            + " verifier_key_id = NULL, verifier = NULL, updated_at = now()"
            + " WHERE client_id = ? AND status = 'active'";

    /** The same revocation, and in the same statement the kick of the device's live session. */
    private static final String REVOKE_AND_KICK = "WITH revoked AS (" + REVOKE + " RETURNING client_id),"
            + KickOutbox.recordKicks("revoked", KickOutbox.Reason.REVOKED, "")
            + " SELECT count(*) FROM revoked";

    private final AgroalDataSource dataSource;
    private final CredentialRows rows;
    private final KickWorker kicks;
    private final DatabaseGuard saveGuard;
    private final DatabaseGuard revokeGuard;

    public DeviceStore(AgroalDataSource dataSource, ObjectMapper json, KickWorker kicks, DatabaseGuardConfig guards) {
        this.dataSource = dataSource;
        this.rows = new CredentialRows(json);
        this.kicks = kicks;
        this.saveGuard = DatabaseGuard.of(guards, SAVE_BREAKER, DeviceStore.class, "save");
        this.revokeGuard = DatabaseGuard.of(guards, REVOKE_BREAKER, DeviceStore.class, "revoke");
    }

    /** The result of a create-or-replace: whether the row is new, and the device as now stored. */
    public record Saved(boolean created, DeviceCredential device) {
    }

    public Saved save(String clientId, RegistrationRequest request, String passwordHash) throws SQLException {
        return saveGuard.call(() -> upsert(clientId, request, passwordHash));
    }

    private Saved upsert(String clientId, RegistrationRequest request, String passwordHash) throws SQLException {
        boolean kick = kicks.enabled();
        try (Connection connection = PooledConnections.take(dataSource);
                PreparedStatement statement = connection.prepareStatement(kick ? UPSERT_AND_KICK : UPSERT)) {
            statement.setString(1, clientId);
            statement.setString(2, request.username());
            statement.setString(3, passwordHash);
            statement.setBoolean(4, request.superuser());
            statement.setString(5, rows.aclColumn(request.acl()));
            try (ResultSet result = statement.executeQuery()) {
                if (!result.next()) {
                    throw new SQLException("an upsert returned no row", "XX000");
                }
                DeviceCredential stored = new DeviceCredential(clientId, request.username(), null,
                        DeviceStatus.ACTIVE, request.superuser(), request.acl(),
                        result.getTimestamp(2).toInstant(), result.getTimestamp(3).toInstant(), null);
                boolean created = result.getBoolean(1);
                if (kick && !created) {
                    kicks.nudge();
                }
                return new Saved(created, stored);
            }
        }
    }

    /** Marks an active device revoked; {@code false} when there is no such device or it is revoked already. */
    public boolean revoke(String clientId) throws SQLException {
        return revokeGuard.call(() -> markRevoked(clientId));
    }

    private boolean markRevoked(String clientId) throws SQLException {
        if (!kicks.enabled()) {
            try (Connection connection = PooledConnections.take(dataSource);
                    PreparedStatement statement = connection.prepareStatement(REVOKE)) {
                statement.setString(1, clientId);
                return statement.executeUpdate() == 1;
            }
        }
        try (Connection connection = PooledConnections.take(dataSource);
                PreparedStatement statement = connection.prepareStatement(REVOKE_AND_KICK)) {
            statement.setString(1, clientId);
            try (ResultSet result = statement.executeQuery()) {
                boolean revoked = result.next() && result.getLong(1) == 1;
                if (revoked) {
                    kicks.nudge();
                }
                return revoked;
            }
        }
    }
}
