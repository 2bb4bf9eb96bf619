package io.deviceidentity.overload;

import java.sql.SQLException;
import java.util.concurrent.CompletionException;
import java.util.concurrent.RejectedExecutionException;

import org.eclipse.microprofile.faulttolerance.exceptions.CircuitBreakerOpenException;
import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;

import org.jboss.logging.Logger;

import io.smallrye.faulttolerance.api.RateLimitException;

/**
 * Turns what the database path and the fault-tolerance guards throw into the 503 reasons. Anything it does not
 * recognise is returned unchanged: an unexpected exception is a defect and must surface as a 500 with its stack.
 */
public final class BackendFailures {

    private static final Logger LOG = Logger.getLogger(BackendFailures.class);

    /** Seconds a caller should wait when the circuit is open: about the breaker's delay. */
    private static final int CIRCUIT_OPEN_RETRY_AFTER = 5;

    private BackendFailures() {
    }

    public static RuntimeException classify(Throwable failure) {
        Throwable cause = unwrap(failure);
        if (cause instanceof ServiceUnavailableException unavailable) {
            return unavailable;
        }
        if (cause instanceof CircuitBreakerOpenException) {
            return ServiceUnavailableException.backendUnavailable("the database circuit is open",
                    CIRCUIT_OPEN_RETRY_AFTER);
        }
        if (cause instanceof SQLException sql) {
            // The outcome line names only the SQLSTATE; the driver's own words (no secrets: statements carry
            // parameters separately) are there for operators who turn this category to DEBUG.
            LOG.debug("database failure answered backend_unavailable", sql);
            return ServiceUnavailableException.backendUnavailable(describe(sql), 1);
        }
        if (cause instanceof RejectedExecutionException || cause instanceof RateLimitException) {
            return ServiceUnavailableException.overload("no capacity left for this request");
        }
        if (cause instanceof TimeoutException || cause instanceof java.util.concurrent.TimeoutException) {
            return ServiceUnavailableException.deadline();
        }
        return cause instanceof RuntimeException runtime ? runtime : new IllegalStateException(cause);
    }

    /** A short, secret-free description: SQLSTATE class and what it means for an operator. */
    static String describe(SQLException sql) {
        String state = sql.getSQLState() == null ? "" : sql.getSQLState();
        String message = sql.getMessage() == null ? "" : sql.getMessage();
        if (message.contains("max_client_conn")) {
            return "PgBouncer refused the connection (max_client_conn)";
        }
        if (message.contains("query_wait_timeout")) {
            return "PgBouncer found no server connection in time (query_wait_timeout)";
        }
        if (state.startsWith("08")) {
            return "the database is unreachable (SQLSTATE " + state + ")";
        }
        return "the database failed the request (SQLSTATE " + (state.isEmpty() ? "unknown" : state) + ")";
    }

    private static Throwable unwrap(Throwable failure) {
        Throwable current = failure;
        while ((current instanceof CompletionException || current instanceof java.util.concurrent.ExecutionException)
                && current.getCause() != null) {
            current = current.getCause();
        }
        return current;
    }
}
