package io.deviceidentity.loadtest.devices;

import java.util.random.RandomGenerator;

/**
 * Open-model arrival times: exponentially distributed gaps at a mean rate, independent of how fast the service
 * answers. That is what devices coming back after a network blip look like, and it is why a slow service gets
 * more concurrent work, not less (a closed-loop generator would slow down with the service and hide overload).
 */
final class PoissonArrivals {

    private final double meanGapNanos;
    private final RandomGenerator random;
    private long next;

    PoissonArrivals(double ratePerSecond, long startNanos, RandomGenerator random) {
        if (ratePerSecond <= 0) {
            throw new IllegalArgumentException("--rate must be positive");
        }
        this.meanGapNanos = 1e9 / ratePerSecond;
        this.random = random;
        this.next = startNanos + gap();
    }

    /** How many arrivals are due by {@code now}; advances past them. */
    int dueBy(long now) {
        int due = 0;
        while (next <= now) {
            due++;
            next += gap();
        }
        return due;
    }

    private long gap() {
        return Math.max(1, Math.round(-Math.log(1 - random.nextDouble()) * meanGapNanos));
    }
}
