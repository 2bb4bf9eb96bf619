package io.deviceidentity.overload;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** The numbers of every {@link DatabaseGuard} of a service (each guard keeps its own state with them). */
@ConfigMapping(prefix = "identity.database-guard")
public interface DatabaseGuardConfig {

    /** Calls in the circuit breaker's rolling window. */
    @WithDefault("10")
    int requestVolumeThreshold();

    /** Share of failed calls in the window that opens the breaker. */
    @WithDefault("0.5")
    double failureRatio();

    /**
     * How long an open breaker answers without trying the database before it lets trial calls through. A trial that
     * lands just before a repaired database answers again keeps the breaker open for this long once more, so it bounds
     * the recovery after a repair: 2 s keeps that within 5 s of a restarted PostgreSQL (which answers 1.5-2 s after
     * its start), where 3 s did not always.
     */
    @WithDefault("2s")
    Duration delay();

    /** Successful trial calls that close a half-open breaker. */
    @WithDefault("2")
    int successThreshold();

    /**
     * Outer bound of one database call (pool wait + statement). Above the JDBC socket timeout (3 s), so that a hung
     * database surfaces as a SQL failure, which opens the breaker, rather than as a timeout, which the breaker skips
     * as a deadline; below the 4 s deadline.
     */
    @WithDefault("3500ms")
    Duration timeout();
}
