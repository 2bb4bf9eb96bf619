package io.deviceidentity.loadtest.report;

import io.deviceidentity.loadtest.emqx.Answer;

/** Counters for one span of the run (a second, the steady-state window, the whole counted run). */
final class Tally {

    long offered;
    long fresh;
    long retries;
    long exhausted;
    long expiredInQueue;
    long jammedConnectionsDropped;
    long timeouts;
    final Counts inTime = new Counts();
    final Counts late = new Counts();
    /** Every HTTP answer, in time or late. */
    final LatencyHistogram latency = new LatencyHistogram();
    /** {@code 200 allow} answers, in time or late: how long the service's allows took to reach EMQX. */
    final LatencyHistogram latencyAllow = new LatencyHistogram();
    /** 503 answers, in time or late: a refusal is only useful when it is fast. */
    final LatencyHistogram latency503 = new LatencyHistogram();
    /** 503 answers from being sent to their arrival: how long the service itself took to refuse. */
    final LatencyHistogram latency503Service = new LatencyHistogram();
    int queuedPeak;
    int longestQueuePeak;
    long maxLagMs;

    void answer(Answer answer, long latencyNanos, boolean inTime) {
        (inTime ? this.inTime : late).add(answer.key());
        if (answer.status() != 0) {
            latency.record(latencyNanos);
        }
        if (answer.isAllow()) {
            latencyAllow.record(latencyNanos);
        } else if (answer.isUnavailable()) {
            latency503.record(latencyNanos);
        }
    }

    void serviceTime(Answer answer, long sentToAnswerNanos) {
        if (answer.isUnavailable()) {
            latency503Service.record(sentToAnswerNanos);
        }
    }

    void queues(int queued, int longest) {
        queuedPeak = Math.max(queuedPeak, queued);
        longestQueuePeak = Math.max(longestQueuePeak, longest);
    }

    void reset() {
        offered = 0;
        fresh = 0;
        retries = 0;
        exhausted = 0;
        expiredInQueue = 0;
        timeouts = 0;
        inTime.reset();
        late.reset();
        latency.reset();
        latencyAllow.reset();
        latency503.reset();
        latency503Service.reset();
        queuedPeak = 0;
        longestQueuePeak = 0;
        maxLagMs = 0;
    }
}
