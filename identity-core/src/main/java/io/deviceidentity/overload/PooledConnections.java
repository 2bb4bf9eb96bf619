package io.deviceidentity.overload;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

import javax.sql.DataSource;

import io.agroal.api.AgroalDataSource;
import io.agroal.api.AgroalDataSourceMetrics;

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
            DatabaseAttribution.connectionWanted(waitIsTheDatabasePaths(pool), pool);
            Connection connection = pool.getConnection();
            DatabaseAttribution.connectionTaken(pool);
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
     * Whether a wait for a connection from {@code pool} is a wait on the database path, not on this service: the pool
     * has an idle connection to lend (a wait is then its validation, a round trip through PgBouncer, which waits on
     * the database as a statement does), or it holds fewer than it keeps ({@code min-size}: it is reopening one the
     * database path dropped). Otherwise every connection is lent out, to this service's own holders, or the pool is
     * opening one for a burst. Agroal's counts; false for any other pool, and for one that keeps no metrics.
     */
    public static boolean waitIsTheDatabasePaths(DataSource pool) {
        if (!(pool instanceof AgroalDataSource agroal)) {
            return false;
        }
        AgroalDataSourceMetrics metrics = agroal.getMetrics();
        return metrics.availableCount() > 0 || metrics.creationCount() - metrics.destroyCount()
                < agroal.getConfiguration().connectionPoolConfiguration().minSize();
    }

    static boolean isAcquisitionTimeout(SQLException failure) {
        String message = failure.getMessage();
        return message != null && message.toLowerCase(Locale.ROOT).contains("acquisition timeout");
    }
}
