package io.deviceidentity.loadtest.report;

import java.util.ArrayList;
import java.util.List;

import io.deviceidentity.loadtest.devices.AttemptListener;
import io.deviceidentity.loadtest.emqx.Answer;
import io.deviceidentity.loadtest.emqx.CallListener;

/**
 * Counts everything the client and the devices report, per second and for the whole run. Totals start after the
 * warm-up (so a capacity figure does not include the JIT's first seconds); the per-second series covers the whole
 * run. Runs on the event loop only, so nothing here needs to be thread-safe.
 */
public final class Recorder implements CallListener, AttemptListener {

    private final Tally window = new Tally();
    private final Tally total = new Tally();
    private final LatencyHistogram totalAdmitted = new LatencyHistogram();
    private final LatencyHistogram totalUnavailable = new LatencyHistogram();
    private final List<SecondStats> seconds = new ArrayList<>();
    private boolean counting;
    private long maxLagMs;

    /** Starts the totals (the end of the warm-up). */
    public void startCounting() {
        counting = true;
    }

    @Override
    public void offered() {
        window.offered++;
        if (counting) {
            total.offered++;
        }
    }

    @Override
    public void freshAttempt() {
        window.fresh++;
        if (counting) {
            total.fresh++;
        }
    }

    @Override
    public void retryAttempt() {
        window.retries++;
        if (counting) {
            total.retries++;
        }
    }

    @Override
    public void populationExhausted() {
        window.exhausted++;
        if (counting) {
            total.exhausted++;
        }
    }

    @Override
    public void expiredInQueue() {
        window.expiredInQueue++;
        if (counting) {
            total.expiredInQueue++;
        }
    }

    @Override
    public void timedOut() {
        window.timeouts++;
        if (counting) {
            total.timeouts++;
        }
    }

    @Override
    public void answered(Answer answer, long latencyNanos, boolean inTime) {
        window.answer(answer, latencyNanos, inTime);
        if (counting) {
            total.answer(answer, latencyNanos, inTime);
            if (answer.isAdmitted()) {
                totalAdmitted.record(latencyNanos);
            } else if (answer.isUnavailable()) {
                totalUnavailable.record(latencyNanos);
            }
        }
    }

    /** Closes the current second and starts the next. */
    public SecondStats closeSecond(int inFlight, int queued, Integer pgConnections, Integer pgbouncerClients,
            long devicesConnected, long generatorLagMs) {
        maxLagMs = Math.max(maxLagMs, generatorLagMs);
        SecondStats stats = new SecondStats(seconds.size() + 1, window.offered, window.fresh, window.retries,
                window.inTime.get("200 allow"), window.inTime.snapshot(), window.timeouts, window.late.total(),
                window.expiredInQueue, window.latency.summary(), inFlight, queued, pgConnections, pgbouncerClients,
                devicesConnected, generatorLagMs);
        seconds.add(stats);
        window.reset();
        return stats;
    }

    public List<SecondStats> seconds() {
        return List.copyOf(seconds);
    }

    /** The whole run's totals (after warm-up), for {@code measuredSeconds} of counting. */
    public RunTotals totals(double measuredSeconds, int pendingAtEnd, long devicesConnected) {
        long allows = total.inTime.get("200 allow");
        long transportErrors = total.inTime.get(Answer.TRANSPORT_ERROR.key());
        return new RunTotals(measuredSeconds, total.offered, rate(total.offered, measuredSeconds), total.fresh,
                total.retries, allows, rate(allows, measuredSeconds), total.inTime.snapshot(),
                total.late.snapshot(), total.late.total(), total.timeouts, total.expiredInQueue, transportErrors,
                total.inTime.statusBetween(500, 600), total.late.statusBetween(500, 600),
                total.inTime.get("429 rate_limited"), total.exhausted, pendingAtEnd, devicesConnected,
                total.latency.summary(), totalAdmitted.summary(), totalUnavailable.summary(), maxLagMs);
    }

    private static double rate(long count, double seconds) {
        return seconds <= 0 ? 0 : Math.round(count / seconds * 10) / 10.0;
    }

    /** Counters for one span of time. */
    private static final class Tally {
        long offered;
        long fresh;
        long retries;
        long exhausted;
        long expiredInQueue;
        long timeouts;
        final Counts inTime = new Counts();
        final Counts late = new Counts();
        final LatencyHistogram latency = new LatencyHistogram();

        void answer(Answer answer, long latencyNanos, boolean inTime) {
            (inTime ? this.inTime : late).add(answer.key());
            if (answer.status() != 0) {
                latency.record(latencyNanos);
            }
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
        }
    }
}
