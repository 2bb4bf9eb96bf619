package io.deviceidentity.loadtest.report;

import java.util.Map;

/**
 * The run's totals after warm-up (kept as they were for older readers; {@link WindowSummary} is the richer view).
 * Rates are per second of counting. {@code answers} are the answers EMQX read (in time: within request_timeout of
 * the call entering its queue); {@code answersAfterTimeout} arrived later and were dropped unread: work the service
 * did for nobody. Latency covers every HTTP answer received (in time or late); {@code admitted} is the 200s (the service
 * decided allow/deny), {@code unavailable503} the 503s. {@code maxGeneratorLagMs}: the worst delay of the load
 * generator's own clock tick; more than a few hundred ms means the generator was starved and the run is suspect.
 */
public record RunTotals(
        double measuredSeconds,
        long offered,
        double offeredRate,
        long freshAttempts,
        long retries,
        long allowsInTime,
        double goodput,
        Map<String, Long> answers,
        Map<String, Long> answersAfterTimeout,
        long answersAfterTimeoutTotal,
        long timeouts,
        long expiredInQueue,
        long transportErrors,
        long status5xx,
        long status5xxAfterTimeout,
        long rateLimited,
        long populationExhausted,
        int pendingAtEnd,
        long devicesConnected,
        LatencySummary latencyAll,
        LatencySummary latencyAdmitted,
        LatencySummary latencyUnavailable503,
        long maxGeneratorLagMs) {
}
