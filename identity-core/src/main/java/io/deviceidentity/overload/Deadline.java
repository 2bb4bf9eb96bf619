package io.deviceidentity.overload;

import java.time.Duration;

/** The moment by which a request must be answered, on the monotonic clock. */
public record Deadline(long arrivalNanos, long deadlineNanos) {

    public static Deadline after(long arrivalNanos, Duration budget) {
        return new Deadline(arrivalNanos, arrivalNanos + budget.toNanos());
    }

    public long remainingNanos() {
        return deadlineNanos - System.nanoTime();
    }

    public boolean hasPassed() {
        return remainingNanos() <= 0;
    }

    /** Whether work that takes {@code nanos} and starts now would finish in time. */
    public boolean allows(long nanos) {
        return remainingNanos() >= nanos;
    }

    public long elapsedMillis() {
        return (System.nanoTime() - arrivalNanos) / 1_000_000;
    }

    /** Fails with {@code deadline} when the time is up. */
    public void check() {
        if (hasPassed()) {
            throw ServiceUnavailableException.deadline();
        }
    }
}
