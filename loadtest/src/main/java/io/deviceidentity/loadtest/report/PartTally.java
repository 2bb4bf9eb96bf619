package io.deviceidentity.loadtest.report;

import io.deviceidentity.loadtest.emqx.Answer;

/** What the devices of one population part saw over one span of the run (see {@link PartSummary}). */
final class PartTally {

    final String name;
    long fresh;
    long retries;
    long exhausted;
    long firstAttemptsEnded;
    long firstAttemptAllows;
    /** What devices got, by answer key, plus {@code timeout}. */
    final Counts results = new Counts();
    /** Allows the devices got (in time by construction), from the attempt's start. */
    final LatencyHistogram latencyAllow = new LatencyHistogram();
    final LatencyHistogram latencyFirstAttempt = new LatencyHistogram();

    PartTally(String name) {
        this.name = name;
    }

    void ended(boolean firstAttempt, Answer answer, long latencyNanos) {
        results.add(answer.key());
        if (firstAttempt) {
            firstAttemptsEnded++;
            latencyFirstAttempt.record(latencyNanos);
            if (answer.isAllow()) {
                firstAttemptAllows++;
            }
        }
        if (answer.isAllow()) {
            latencyAllow.record(latencyNanos);
        }
    }

    PartSummary summary(int seconds, Double capacity) {
        long allows = results.get("200 allow");
        double goodput = rate(allows, seconds);
        double demand = rate(fresh, seconds);
        return new PartSummary(name, fresh, demand, retries, exhausted, firstAttemptsEnded, firstAttemptAllows,
                firstAttemptsEnded == 0 ? null : Math.round(firstAttemptAllows * 10_000.0 / firstAttemptsEnded) / 10_000.0,
                allows, goodput,
                capacity == null || capacity <= 0 ? null : Math.round(goodput / capacity * 100) / 100.0,
                capacity == null || capacity <= 0 ? null : Math.round(demand / capacity * 100) / 100.0,
                results.snapshot(), latencyAllow.summary(), latencyFirstAttempt.summary());
    }

    private static double rate(long count, double seconds) {
        return seconds <= 0 ? 0 : Math.round(count / seconds * 10) / 10.0;
    }
}
