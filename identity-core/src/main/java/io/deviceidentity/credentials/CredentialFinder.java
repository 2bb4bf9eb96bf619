package io.deviceidentity.credentials;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.overload.DatabaseGuard;
import io.deviceidentity.overload.DatabaseGuardConfig;
import io.deviceidentity.overload.PooledConnections;

/**
 * Reads one device's credential through the service's pool (PgBouncer): one indexed query, and the connection is
 * back in the pool before this method returns, so nobody holds a connection while bcrypt runs. auth-service reads
 * with it before every check, registration-service for {@code GET}. Callers run it on the
 * database {@link io.deviceidentity.overload.Lane}.
 *
 * <p>Guarded by its own {@link DatabaseGuard}, {@value #BREAKER}: a breaker that opens only when the database fails
 * (never on overload, including a pool wait that timed out, see {@link PooledConnections}) and a timeout. Its own,
 * so that the registration writes' breakers never refuse this read ({@code identity.database-guard.*} sets the
 * numbers).
 *
 * <p>With standby reads on ({@link StandbyReads}), the read goes to the synchronous standby when it proves it has
 * replayed everything acknowledged, to the primary otherwise; a standby that fails is no failure of this method.
 */
@ApplicationScoped
public class CredentialFinder {

    /** The name of this read's circuit breaker, as operators see it. */
    public static final String BREAKER = "credential-finder";

    private final DataSource pool;
    private final CredentialRows rows;
    private final StandbyReads standby;
    private final DatabaseGuard guard;

    /** {@code standby}: a service that may read from a synchronous standby provides one ({@link StandbyReads}). */
    public CredentialFinder(DataSource pool, ObjectMapper json, Instance<StandbyReads> standby,
            DatabaseGuardConfig guards) {
        this.pool = pool;
        this.rows = new CredentialRows(json);
        this.standby = standby.isResolvable() ? standby.get() : StandbyReads.OFF;
        this.guard = DatabaseGuard.of(guards, BREAKER, CredentialFinder.class, "find");
    }

    /** {@code withVerifier}: also read the fast path's verifier, in the same query (auth-service with the fast path on). */
    public Optional<DeviceCredential> find(String clientId, boolean withVerifier) throws SQLException {
        return guard.call(() -> {
            Optional<Optional<DeviceCredential>> fromStandby = standby.find(rows, clientId, withVerifier);
            if (fromStandby.isPresent()) {
                return fromStandby.get();
            }
            try (Connection connection = PooledConnections.take(pool)) {
                return rows.find(connection, clientId, withVerifier);
            }
        });
    }
}
