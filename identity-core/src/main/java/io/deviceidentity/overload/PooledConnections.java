package io.deviceidentity.overload;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

import javax.sql.DataSource;

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
            DatabaseAttribution.connectionWanted();
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

    static boolean isAcquisitionTimeout(SQLException failure) {
        String message = failure.getMessage();
        return message != null && message.toLowerCase(Locale.ROOT).contains("acquisition timeout");
    }
}
