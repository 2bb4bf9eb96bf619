package io.deviceidentity.overload;

import java.util.concurrent.atomic.AtomicLong;

/**
 * The measured time of one unit of a lane's work: a moving average of step time ÷ the step's units, which turns the
 * work ahead of a request into an expected waiting time. Only steps that ran for a request feed it; a bulk step (an
 * import's batch, tens of times a request's step) would make every request's wait look long.
 */
final class StepTime {

    /** Work is counted in whole multiples of the cheapest bcrypt check's charge, so that sums of it stay exact. */
    static final double TICKS_PER_UNIT = 1 / io.deviceidentity.credentials.CheckCost.FLOOR;

    private final AtomicLong nanosPerUnit;
    /** The newest sample's weight is 1 / smoothing: 5 (bcrypt) is about five steps of memory, 10 about ten. */
    private final int smoothing;

    StepTime(long initialNanosPerUnit, int smoothing) {
        this.nanosPerUnit = new AtomicLong(Math.max(1, initialNanosPerUnit));
        this.smoothing = smoothing;
    }

    long nanosPerUnit() {
        return nanosPerUnit.get();
    }

    /** A step of {@code ticks} took {@code tookNanos}. */
    void measured(long tookNanos, long ticks) {
        long sample = (long) (tookNanos * TICKS_PER_UNIT / ticks);
        nanosPerUnit.accumulateAndGet(sample, (average, next) -> Math.max(1, average + (next - average) / smoothing));
    }

    /** Work of {@code units} in ticks; a lane's work costs a positive, finite number of units. */
    static long ticks(double units) {
        if (!(units > 0) || Double.isInfinite(units)) {
            throw new IllegalArgumentException("lane work must cost a positive, finite number of units: " + units);
        }
        return Math.max(1, (long) Math.ceil(units * TICKS_PER_UNIT));
    }

    /** The time of {@code ticks} at {@code nanosPerUnit}. */
    static long nanos(long ticks, long nanosPerUnit) {
        return (long) (ticks / TICKS_PER_UNIT * nanosPerUnit);
    }
}
