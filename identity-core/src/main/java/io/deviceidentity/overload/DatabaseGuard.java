package io.deviceidentity.overload;

import java.time.temporal.ChronoUnit;
import java.util.List;

import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;

import io.smallrye.faulttolerance.api.Guard;

/**
 * The fault tolerance of a database method, defined once: a circuit breaker that opens only on a database failure,
 * and a timeout. A service builds one per method, named after it ({@code credential-finder},
 * {@code device-store-save}, ...), exposes it as a CDI bean {@code @Identifier(name)} and applies it with
 * {@code @ApplyGuard(name)}. One instance per method rather than one for all: each breaker keeps its own state, so
 * a failing report query or import batch cannot open the circuit in front of a device's login or registration, and
 * operators keep seeing the breaker and metric names they know (the metrics' {@code method} tag stays the Java
 * method's name under {@code @ApplyGuard}).
 *
 * <p>Overload never opens a breaker: {@link ServiceUnavailableException} (overload and deadline refusals, including
 * a pool that had no connection to lend in time, see {@link PooledConnections}) and this guard's own timeout are
 * skipped, so "open" keeps meaning "database down" and is answered at once with {@code backend_unavailable}. A
 * database that hangs still opens it: the JDBC socket timeout (3 s) fires before the guard's timeout and surfaces as
 * a SQL failure.
 *
 * <p>No bulkhead: every guarded method runs on the {@link DatabaseLane}, whose concurrency (by default the pool
 * size) is the one limit on concurrent database calls; Agroal's acquisition timeout backs it if the lane is set
 * wider than the pool.
 *
 * <p>The numbers below are the defaults; each is overridable per guard under
 * {@code quarkus.fault-tolerance."<name>".circuit-breaker.*} and {@code quarkus.fault-tolerance."<name>".timeout.value}
 * (milliseconds), e.g. {@code quarkus.fault-tolerance."credential-finder".circuit-breaker.delay}.
 */
public final class DatabaseGuard {

    /** Calls in the breaker's rolling window. */
    static final int REQUEST_VOLUME_THRESHOLD = 10;
    /** Share of failed calls in the window that opens the breaker. */
    static final double FAILURE_RATIO = 0.5;
    /** How long an open breaker answers without trying the database before it lets trial calls through. */
    static final long DELAY_MILLIS = 3000;
    /** Successful trial calls that close a half-open breaker. */
    static final int SUCCESS_THRESHOLD = 2;
    /**
     * Outer bound of one database call (pool wait + statement). Above the JDBC socket timeout (3 s), so that a hung
     * database surfaces as a SQL failure, which opens the breaker, rather than as a {@code TimeoutException}, which
     * the breaker skips as a deadline; below the 4 s deadline.
     */
    static final long TIMEOUT_MILLIS = 3500;

    private DatabaseGuard() {
    }

    /** The guard of one database method; {@code name} is its breaker's name, and its bean's identifier. */
    public static Guard named(String name) {
        return Guard.create()
                .withCircuitBreaker()
                .name(name)
                .requestVolumeThreshold(REQUEST_VOLUME_THRESHOLD)
                .failureRatio(FAILURE_RATIO)
                .delay(DELAY_MILLIS, ChronoUnit.MILLIS)
                .successThreshold(SUCCESS_THRESHOLD)
                .skipOn(List.of(ServiceUnavailableException.class, TimeoutException.class))
                .done()
                .withTimeout()
                .duration(TIMEOUT_MILLIS, ChronoUnit.MILLIS)
                .done()
                .build();
    }
}
