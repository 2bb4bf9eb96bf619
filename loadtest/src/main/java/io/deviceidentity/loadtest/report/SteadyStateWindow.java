package io.deviceidentity.loadtest.report;

import java.time.Duration;

import io.deviceidentity.loadtest.devices.Durations;
import io.deviceidentity.loadtest.devices.RateSchedule;
import io.deviceidentity.loadtest.devices.RetryPolicy;

/**
 * Which part of a run is its steady state, the headline: from {@code startSecond} (elapsed seconds) to the end.
 * <ul>
 *   <li>Open model: the first timeouts come {@code request_timeout} (+ 0.5 s) after the storm starts, their retries
 *       one retry period later; only then have EMQX's queue and the retry backlog formed. So the window starts at
 *       {@code request_timeout + retry period} (10 s + 12 s = 22 s for the incident's fixed:12s devices), counted
 *       from the step when the arrival rate steps. The retry period of {@code backoff:B..C} (full jitter) is C/2,
 *       the mean wait once retries have reached the cap (with 1s..60s: 10 s + 30 s = 40 s); for {@code none} it is
 *       the caller's extra 0.5 s (no retries: the state forms with the first timeouts).</li>
 *   <li>Closed loop (capacity): nothing builds up; the window is the counted run (after {@code --warmup}).</li>
 *   <li>{@code --steady-state-from} overrides the rule.</li>
 * </ul>
 * The window never starts before the warm-up ends, and is at least a quarter of the run (5 s at least): a start
 * later than that is moved earlier and the window is marked {@code clamped} (the run was too short for its rule).
 */
public record SteadyStateWindow(int startSecond, int endSecond, String rule, boolean clamped) {

    public int seconds() {
        return endSecond - startSecond;
    }

    /**
     * The window of a run that ended after {@code end} seconds, earlier than planned (a workload that finished, such
     * as an each-device-once pass): the same start when it still lies before the end, else the last second.
     */
    public SteadyStateWindow endingAt(int end) {
        if (end >= endSecond) {
            return this;
        }
        int start = Math.min(startSecond, Math.max(0, end - 1));
        return new SteadyStateWindow(start, end, rule + "; the run ended early at " + end + " s (its workload was done)",
                clamped || start != startSecond);
    }

    public static SteadyStateWindow choose(Duration duration, Duration warmup, Duration requestTimeout,
            RetryPolicy retry, RateSchedule schedule, boolean closedLoop, Duration override) {
        int end = (int) duration.toSeconds();
        int warm = (int) Math.ceil(warmup.toMillis() / 1000.0);
        Duration start;
        String rule;
        if (override != null) {
            start = override;
            rule = "--steady-state-from " + Durations.format(override);
        } else if (closedLoop) {
            start = warmup;
            rule = "closed loop: the counted run after warm-up";
        } else {
            Duration period = retryPeriod(retry);
            Duration step = schedule != null && schedule.hasStep() ? schedule.stepAt() : Duration.ZERO;
            start = step.plus(requestTimeout).plus(period);
            rule = (step.isZero() ? "" : "step at " + Durations.format(step) + " + ") + "request_timeout "
                    + Durations.format(requestTimeout) + " + retry period " + Durations.format(period) + " ("
                    + retry.describe() + ")";
        }
        int startSecond = Math.max(warm, (int) Math.ceil(start.toMillis() / 1000.0));
        int minWindow = Math.max(5, end / 4);
        boolean clamped = false;
        if (end - startSecond < minWindow) {
            startSecond = Math.max(warm, end - minWindow);
            clamped = true;
        }
        if (startSecond >= end) {
            startSecond = Math.max(0, end - 1);
            clamped = true;
        }
        return new SteadyStateWindow(startSecond, end, rule, clamped);
    }

    /** The time after which a failed device is back; see the class comment. */
    static Duration retryPeriod(RetryPolicy retry) {
        if (retry instanceof RetryPolicy.Fixed fixed) {
            return fixed.interval();
        }
        if (retry instanceof RetryPolicy.BackoffFullJitter backoff) {
            return backoff.cap().dividedBy(2);
        }
        return Duration.ofMillis(500);
    }
}
