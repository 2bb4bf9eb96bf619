package io.deviceidentity.readiness;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** When the service reports ready (see {@link WarmUp}). */
@ConfigMapping(prefix = "identity.readiness")
public interface ReadinessConfig {

    /**
     * Run the warm-up in the background (its tries on the worker pool, the waits between them on a timer) while the
     * HTTP server already answers liveness (and readiness DOWN): the production way, so that a database that is down
     * at start leaves the pod alive and unready instead of stuck in startup. {@code false} runs it inside the start
     * event, so the application is warm before anything calls it (the {@code @QuarkusTest} profile, whose tests count
     * hashes and refusals from their first request).
     */
    @WithDefault("true")
    boolean warmUpInBackground();

    /**
     * How many requests the service sends to its own main port before it reports ready ({@link SelfRequests}), so
     * that a JVM pod's first storm does not pay for compiling its request path inside its CPU quota; 0 sends none.
     * Ignored in a native image, which has nothing to compile. At 0.25 vCPU 2 000 take about half a minute.
     */
    @WithDefault("2000")
    int selfRequests();

    /** How many of {@link #selfRequests()} are in flight at once, each on its own connection (as EMQX's pool). */
    @WithDefault("4")
    int selfRequestConnections();
}
