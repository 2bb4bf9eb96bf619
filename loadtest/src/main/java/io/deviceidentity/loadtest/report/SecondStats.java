package io.deviceidentity.loadtest.report;

import java.util.Map;

/**
 * One second of the run. Answers are counted in the second they arrived; latency percentiles cover every answer
 * that arrived in that second (late ones included, so a queue that keeps growing shows).
 */
public record SecondStats(
        int second,
        long offered,
        long freshAttempts,
        long retries,
        long goodput,
        Map<String, Long> answers,
        long timeouts,
        long answersAfterTimeout,
        long expiredInQueue,
        LatencySummary latency,
        int inFlight,
        int queued,
        Integer pgConnections,
        Integer pgbouncerClients,
        long devicesConnected) {
}
