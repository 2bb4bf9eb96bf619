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

    /** How long an open breaker answers without trying the database before it lets trial calls through. */
    @WithDefault("3s")
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
