package io.deviceidentity.loadtest.report;

/** Percentiles of a latency histogram, in milliseconds; all zero when nothing was recorded. */
public record LatencySummary(long count, double p50Ms, double p90Ms, double p99Ms, double maxMs) {

    public static final LatencySummary EMPTY = new LatencySummary(0, 0, 0, 0, 0);
}
