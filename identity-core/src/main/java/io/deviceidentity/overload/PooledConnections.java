package io.deviceidentity.overload;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

import javax.sql.DataSource;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.AgroalDataSourceMetrics;
import io.agroal.api.configuration.AgroalConnectionPoolConfiguration;

/**
 * Takes a connection from a service's bounded pool. When none becomes free within the pool's acquisition timeout
 * (Agroal: "Sorry, acquisition timeout!" while every connection is lent out, "Acquisition timeout while waiting for
 * new connection" while the pool is still opening one), the request is refused as {@code overload}: a
 * {@link ServiceUnavailableException}, which circuit breakers list in {@code skipOn}, not a database failure. With
 * connections held for one short statement each, a long wait means this service is saturated (its threads are
 * starved of CPU, or a burst outran a pool that opens connections one by one), and counting it as a database
 * failure would open the circuit breaker during a storm while the database is fine. A database that really hangs
 * still opens the breaker through the statements of the connections' holders, which time out. Only while the database
 * lane finds the database holding its threads ({@link DatabaseAttribution}) is the wait told as
 * {@code backend_unavailable}: then the connections are held by it too.
 */
public final class PooledConnections {

    private PooledConnections() {
    }

    public static Connection take(DataSource pool) throws SQLException {
        try {
            DatabaseAttribution.connectionWanted(opensNoConnection(pool));
            Connection connection = pool.getConnection();
            DatabaseAttribution.connectionTaken();
            return connection;
        } catch (SQLException failure) {
            if (isAcquisitionTimeout(failure)) {
                // While the database holds the lane's threads, the connections are held by it too (lent to steps
                // that wait on it, or validated through PgBouncer against it): then the wait is the database's.
                throw DatabaseAttribution.databaseHoldsTheLane() ? DatabaseAttribution.databaseDown()
                        : ServiceUnavailableException.overload("no pooled database connection became free in time");
            }
            throw failure;
        }
    }

    /**
     * Whether {@code pool} opens no connection for a burst: it holds every connection it may (Agroal's counts: opened
     * minus closed, against its maximum), or it is kept at its maximum ({@code min-size} = {@code max-size}) and opens
     * one only to replace one it lost, which the database path (the database, PgBouncer) caused. A wait for a
     * connection is then spent validating an idle one (a round trip through PgBouncer, which waits on the database as
     * a statement does), reopening a lost one, or waiting for a holder. False for any other pool, and for a growing
     * pool that keeps no metrics (its counts are then zero).
     */
    public static boolean opensNoConnection(DataSource pool) {
        if (!(pool instanceof AgroalDataSource agroal)) {
            return false;
        }
        AgroalConnectionPoolConfiguration configuration = agroal.getConfiguration().connectionPoolConfiguration();
        if (configuration.minSize() >= configuration.maxSize()) {
            return true;
        }
        AgroalDataSourceMetrics metrics = agroal.getMetrics();
        return metrics.creationCount() - metrics.destroyCount() >= configuration.maxSize();
    }

    static boolean isAcquisitionTimeout(SQLException failure) {
        String message = failure.getMessage();
        return message != null && message.toLowerCase(Locale.ROOT).contains("acquisition timeout");
    }
}
