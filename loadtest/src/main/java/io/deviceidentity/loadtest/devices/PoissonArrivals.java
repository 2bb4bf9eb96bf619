package io.deviceidentity.loadtest.devices;

import java.time.Duration;
import java.util.random.RandomGenerator;

/**
 * Open-model arrival times: exponentially distributed gaps at a mean rate, independent of how fast the service
 * answers. That is what devices coming back after a network blip look like, and it is why a slow service gets
 * more concurrent work, not less (a closed-loop generator would slow down with the service and hide overload).
 * At a step of the {@link RateSchedule} the next gap is drawn afresh at the new rate from the step on, which is
 * exact for a Poisson process (it has no memory).
 */
final class PoissonArrivals {

    private final RateSchedule schedule;
    private final long startNanos;
    private final RandomGenerator random;
    private final long stepNanos;
    private long next;

    PoissonArrivals(RateSchedule schedule, long startNanos, RandomGenerator random) {
        this.schedule = schedule;
        this.startNanos = startNanos;
        this.random = random;
        this.stepNanos = schedule.hasStep() ? startNanos + schedule.stepAt().toNanos() : Long.MAX_VALUE;
        this.next = after(startNanos);
    }

    /** How many arrivals are due by {@code now}; advances past them. */
    int dueBy(long now) {
        int due = 0;
        while (next <= now) {
            due++;
            next = after(next);
        }
        return due;
    }

    private long after(long from) {
        double rate = schedule.rateAt(Duration.ofNanos(from - startNanos));
        long candidate = from + gap(rate);
        if (from < stepNanos && candidate >= stepNanos) {
            return stepNanos + gap(schedule.stepRate());
        }
        return candidate;
    }

    private long gap(double ratePerSecond) {
        return Math.max(1, Math.round(-Math.log(1 - random.nextDouble()) * 1e9 / ratePerSecond));
    }
}
