package io.deviceidentity.credentials;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.inject.Instance;

import org.eclipse.microprofile.faulttolerance.Bulkhead;
import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.Timeout;
import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.overload.DatabaseLimits;
import io.deviceidentity.overload.PooledConnections;
import io.deviceidentity.overload.ServiceUnavailableException;
import io.smallrye.faulttolerance.api.CircuitBreakerName;
import io.smallrye.faulttolerance.api.RateLimitException;

/**
 * Reads one device's credential through the service's pool (PgBouncer): one indexed query, and the connection is
 * back in the pool before this method returns, so nobody holds a connection while bcrypt runs. auth-service reads
 * with it before every check, registration-service for {@code GET}. Callers run it on the
 * database {@link io.deviceidentity.overload.Lane}.
 *
 * <p>{@code @Bulkhead} (synchronous, so without a queue) refuses a call at once when as many are running as the
 * pool has connections ({@code overload}); {@code @Timeout} is the outer bound of one read, above the driver's
 * socket timeout (3 s), which fires first for a hung database and so counts as a database failure.
 *
 * <p>The circuit breaker opens only for database failures: overload exceptions, including a pool wait that timed
 * out ({@link PooledConnections}), are in {@code skipOn}, so an open circuit keeps meaning "database down" and is
 * answered at once with {@code backend_unavailable}. Its numbers are configurable under
 * {@code quarkus.fault-tolerance."io.deviceidentity.credentials.CredentialFinder/find".circuit-breaker.*}.
 *
 * <p>With standby reads on ({@link StandbyReads}), the read goes to the synchronous standby when it proves it has
 * replayed everything acknowledged, to the primary otherwise; a standby that fails is no failure of this method.
 */
@ApplicationScoped
public class CredentialFinder {

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
    @Bulkhead(DatabaseLimits.BULKHEAD)
    @Timeout(DatabaseLimits.TIMEOUT_MILLIS)
    @CircuitBreakerName("credential-finder")
    @CircuitBreaker(requestVolumeThreshold = 10, failureRatio = 0.5, delay = 3000, successThreshold = 2,
            skipOn = {BulkheadException.class, TimeoutException.class, RateLimitException.class,
                    ServiceUnavailableException.class})
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
