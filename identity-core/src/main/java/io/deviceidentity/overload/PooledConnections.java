package io.deviceidentity.overload;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.Locale;

import javax.sql.DataSource;

/**
 * Takes a connection from a bounded pool, telling "the pool had none to lend in time" apart from "the database
 * failed".
 *
 * <p>Agroal reports both with a bare {@link SQLException}. An acquisition timeout ("Sorry, acquisition timeout!"
 * while every connection is lent out, "Acquisition timeout while waiting for new connection" while the pool is still
 * opening one) means this service is saturated: it is answered {@code backend_unavailable} like any failure to get
 * a connection, but as a {@link ServiceUnavailableException}, which circuit breakers list in {@code skipOn}. So a
 * burst that outruns the pool, for example the first burst after a start while connections are still being opened
 * one by one, never opens the breaker, and "open" keeps meaning the database itself fails (refused connections,
 * broken sessions, errors).
 */
public final class PooledConnections {

    private PooledConnections() {
    }

    public static Connection take(DataSource pool) throws SQLException {
        try {
            return pool.getConnection();
        } catch (SQLException failure) {
            if (isAcquisitionTimeout(failure)) {
                throw ServiceUnavailableException.backendUnavailable("no database connection became free in time", 1);
            }
            throw failure;
        }
    }

    static boolean isAcquisitionTimeout(SQLException failure) {
        String message = failure.getMessage();
        return message != null && message.toLowerCase(Locale.ROOT).contains("acquisition timeout");
    }
}
