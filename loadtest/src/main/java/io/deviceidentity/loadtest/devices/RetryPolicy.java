package io.deviceidentity.loadtest.devices;

import java.time.Duration;
import java.util.Optional;
import java.util.random.RandomGenerator;

/**
 * When a device tries again after a failed connect (deny, 429, 503, timeout: to a device they all look alike).
 * <ul>
 *   <li>{@code fixed:12s}: the incident's firmware, a fixed timer and no jitter, so failed devices come back in
 *       lock-step waves;</li>
 *   <li>{@code backoff:1s..60s}: exponential backoff with full jitter: retry n waits a uniform random time in
 *       [0, min(cap, base × 2^(n-1))];</li>
 *   <li>{@code none}: gives up after one failure.</li>
 * </ul>
 */
public sealed interface RetryPolicy {

    /** Delay before retry number {@code failures} (1 = first retry), or empty to give up. */
    Optional<Duration> delayAfter(int failures, RandomGenerator random);

    String describe();

    static RetryPolicy parse(String text) {
        String spec = text.trim();
        if (spec.equals("none")) {
            return new None();
        }
        if (spec.startsWith("fixed:")) {
            return new Fixed(Durations.parse(spec.substring("fixed:".length())));
        }
        if (spec.startsWith("backoff:")) {
            String[] range = spec.substring("backoff:".length()).split("\\.\\.");
            if (range.length != 2) {
                throw new IllegalArgumentException("backoff needs base..cap, e.g. backoff:1s..60s");
            }
            return new BackoffFullJitter(Durations.parse(range[0]), Durations.parse(range[1]));
        }
        throw new IllegalArgumentException("unknown retry policy '" + text + "' (fixed:12s, backoff:1s..60s, none)");
    }

    record Fixed(Duration interval) implements RetryPolicy {
        @Override
        public Optional<Duration> delayAfter(int failures, RandomGenerator random) {
            return Optional.of(interval);
        }

        @Override
        public String describe() {
            return "fixed:" + Durations.format(interval);
        }
    }

    record BackoffFullJitter(Duration base, Duration cap) implements RetryPolicy {
        @Override
        public Optional<Duration> delayAfter(int failures, RandomGenerator random) {
            // Cap the exponent so the shift cannot overflow; the cap wins long before that anyway.
            long ceiling = Math.min(cap.toNanos(), base.toNanos() << Math.min(30, Math.max(0, failures - 1)));
            return Optional.of(Duration.ofNanos(random.nextLong(ceiling + 1)));
        }

        @Override
        public String describe() {
            return "backoff:" + Durations.format(base) + ".." + Durations.format(cap);
        }
    }

    record None() implements RetryPolicy {
        @Override
        public Optional<Duration> delayAfter(int failures, RandomGenerator random) {
            return Optional.empty();
        }

        @Override
        public String describe() {
            return "none";
        }
    }
}
