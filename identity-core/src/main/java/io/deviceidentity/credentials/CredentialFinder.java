package io.deviceidentity.credentials;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;
import jakarta.enterprise.inject.Produces;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.overload.DatabaseGuard;
import io.deviceidentity.overload.PooledConnections;
import io.smallrye.common.annotation.Identifier;
import io.smallrye.faulttolerance.api.ApplyGuard;
import io.smallrye.faulttolerance.api.Guard;

/**
 * Reads one device's credential through the service's pool (PgBouncer): one indexed query, and the connection is
 * back in the pool before this method returns, so nobody holds a connection while bcrypt runs. auth-service reads
 * with it before every check, registration-service for {@code GET}. Callers run it on the
 * {@link io.deviceidentity.overload.DatabaseLane}.
 *
 * <p>Guarded by its own {@link DatabaseGuard}, {@value #BREAKER}: a breaker that opens only when the database fails
 * (never on overload, including a pool wait that timed out, see {@link PooledConnections}) and a timeout. Its own,
 * so that the registration writes' breakers never refuse this read. Its numbers are configurable under
 * {@code quarkus.fault-tolerance."credential-finder".*}.
 *
 * <p>With standby reads on ({@link StandbyReads}), the read goes to the synchronous standby when it proves it has
 * replayed everything acknowledged, to the primary otherwise; a standby that fails is no failure of this method.
 */
@ApplicationScoped
public class CredentialFinder {

    /** The name of this read's circuit breaker, as operators see it, and of its guard's bean. */
    public static final String BREAKER = "credential-finder";

    @Produces
    @Identifier(BREAKER)
    static final Guard GUARD = DatabaseGuard.named(BREAKER);

    private final DataSource pool;
    private final CredentialRows rows;
    private final StandbyReads standby;

    /** {@code standby}: a service that may read from a synchronous standby provides one ({@link StandbyReads}). */
    public CredentialFinder(DataSource pool, ObjectMapper json, Instance<StandbyReads> standby) {
        this.pool = pool;
        this.rows = new CredentialRows(json);
        this.standby = standby.isResolvable() ? standby.get() : StandbyReads.OFF;
    }

    /** {@code withVerifier}: also read the fast path's verifier, in the same query (auth-service with the fast path on). */
    @ApplyGuard(BREAKER)
    public Optional<DeviceCredential> find(String clientId, boolean withVerifier) throws SQLException {
        Optional<Optional<DeviceCredential>> fromStandby = standby.find(rows, clientId, withVerifier);
        if (fromStandby.isPresent()) {
            return fromStandby.get();
        }
        try (Connection connection = PooledConnections.take(pool)) {
            return rows.find(connection, clientId, withVerifier);
        }
    }
}
