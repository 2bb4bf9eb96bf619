package io.deviceidentity.overload;

/**
 * The fault-tolerance numbers of every database method, in one place because annotations need constants. Each is
 * overridable per method, e.g.
 * {@code quarkus.fault-tolerance."io.deviceidentity.credentials.CredentialFinder/find".bulkhead.value}; the services'
 * application.properties set the bulkheads to the pool size.
 */
public final class DatabaseLimits {

    /** Concurrent calls of one database method; without a queue, the excess is refused at once. */
    public static final int BULKHEAD = 20;
    /**
     * Outer bound of one database call (pool wait + statement). Above the JDBC socket timeout (3 s), so that a hung
     * database surfaces as a SQL failure, which opens the circuit breaker, rather than as a {@code TimeoutException},
     * which the breakers skip as overload; below the 4 s deadline.
     */
    public static final long TIMEOUT_MILLIS = 3500;

    private DatabaseLimits() {
    }
}
