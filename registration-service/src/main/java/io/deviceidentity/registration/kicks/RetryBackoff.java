package io.deviceidentity.registration.kicks;

import java.time.Duration;

/**
 * Wait after a failed kick: {@code initial × 2^(attempts − 1)}, at most {@code max}. No jitter: replicas do not
 * retry the same row (each row is claimed by one of them at a time), so there is no herd to spread.
 */
public record RetryBackoff(Duration initial, Duration max) {

    public RetryBackoff {
        if (initial.isNegative() || initial.isZero() || max.compareTo(initial) < 0) {
            throw new IllegalArgumentException("retry backoff needs 0 < initial <= max, got " + initial + ", " + max);
        }
    }

    /** The wait after the {@code attempts}-th failed attempt (1 for the first). */
    public Duration after(int attempts) {
        int doublings = Math.max(0, Math.min(attempts - 1, 30));
        long millis = initial.toMillis() << doublings;
        return millis <= 0 || millis > max.toMillis() ? max : Duration.ofMillis(millis);
    }
}
