package io.deviceidentity.auth.credentials;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Optional;

import jakarta.enterprise.context.ApplicationScoped;

import org.eclipse.microprofile.faulttolerance.CircuitBreaker;
import org.eclipse.microprofile.faulttolerance.exceptions.BulkheadException;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.credentials.CredentialRows;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.overload.PooledConnections;
import io.deviceidentity.overload.ServiceUnavailableException;
import io.smallrye.faulttolerance.api.CircuitBreakerName;
import io.smallrye.faulttolerance.api.RateLimitException;

/**
 * Reads a device's credential through PgBouncer. The pooled connection is returned before this method returns, so
 * no connection is ever held while bcrypt runs.
 *
 * <p>The circuit breaker opens only for database failures: overload exceptions (including a pool wait that timed
 * out, see {@link PooledConnections}) are in {@code skipOn}, so an open circuit keeps meaning "database down" and is
 * answered at once with {@code backend_unavailable}. Its numbers are
 * configurable under
 * {@code quarkus.fault-tolerance."io.deviceidentity.auth.credentials.CredentialReader/find".circuit-breaker.*}.
 */
@ApplicationScoped
public class CredentialReader {

    private final AgroalDataSource dataSource;
    private final CredentialRows rows;

    public CredentialReader(AgroalDataSource dataSource, ObjectMapper json) {
        this.dataSource = dataSource;
        this.rows = new CredentialRows(json);
    }

    @CircuitBreakerName("credential-store")
    @CircuitBreaker(requestVolumeThreshold = 10, failureRatio = 0.5, delay = 3000, successThreshold = 2,
            skipOn = {BulkheadException.class, TimeoutException.class, RateLimitException.class,
                    ServiceUnavailableException.class})
    public Optional<DeviceCredential> find(String clientId) throws SQLException {
        try (Connection connection = PooledConnections.take(dataSource)) {
            return rows.find(connection, clientId);
        }
    }
}
