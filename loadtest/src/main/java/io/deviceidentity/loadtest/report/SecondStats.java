package io.deviceidentity.loadtest.report;

import java.util.Map;

/**
 * One second of the run. Answers are counted in the second they arrived; latency percentiles cover every answer
 * that arrived in that second (late ones included, so a queue that keeps growing shows). {@code generatorLagMs} is
 * how late this second's tick ran: when the load generator itself is starved of CPU (a busy shared machine), it
 * sends in bursts and its latencies include its own delay, and this number says so.
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
        long devicesConnected,
        long generatorLagMs) {
}
