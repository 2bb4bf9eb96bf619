package io.deviceidentity.metrics;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.LongAdder;
import java.util.function.LongSupplier;

/**
 * Counts the {@code 503} answers (refusals) of each operation and reason, and hands out one summary line per
 * operation and reason at most once an interval, instead of one log line per refusal.
 *
 * <p>Why: in a storm nearly every answer is a refusal, and on a small pod (0.25 vCPU, a CFS quota) a log line per
 * refusal costs a measurable part of the CPU that bcrypt needs (docs/overload.md#the-cost-of-a-refusal).
 * The metric {@code identity_*_outcomes_total} still counts each one; the summary keeps the log readable and greppable
 * ({@code reason=backend_unavailable}). No thread of its own: the refusal that finds the interval over writes the
 * summary of everything counted since the last one, so a storm that stops leaves its last lines to the next refusal.
 *
 * <p>Times are {@link System#nanoTime()} values from the given clock, so that tests can run on a virtual one.
 */
public final class RefusalSummary {

    private final long intervalNanos;
    private final LongSupplier clock;
    private final AtomicLong lastSummary;
    private final Map<Key, LongAdder> counts = new ConcurrentHashMap<>();

    /** One summarised kind of refusal. */
    public record Key(String operation, String reason) {
    }

    /** A summary line's content: {@code count} refusals of {@code key} over the last {@code spanNanos}. */
    public record Line(Key key, long count, long spanNanos) {
    }

    public RefusalSummary(long intervalNanos, LongSupplier clock) {
        this.intervalNanos = intervalNanos;
        this.clock = clock;
        this.lastSummary = new AtomicLong(clock.getAsLong());
    }

    /** Whether refusals are summarised at all; a zero interval means one line per refusal. */
    public boolean summarises() {
        return intervalNanos > 0;
    }

    /**
     * Counts one refusal; returns the summary lines due now (mostly none), each for the caller to log once. Exactly
     * one caller gets the lines of an interval, however many refuse at the same moment.
     */
    public List<Line> refused(Key key) {
        counts.computeIfAbsent(key, k -> new LongAdder()).increment();
        long now = clock.getAsLong();
        long last = lastSummary.get();
        if (now - last < intervalNanos || !lastSummary.compareAndSet(last, now)) {
            return List.of();
        }
        List<Line> lines = new ArrayList<>();
        counts.forEach((k, count) -> {
            long n = count.sumThenReset();
            if (n > 0) {
                lines.add(new Line(k, n, now - last));
            }
        });
        return lines;
    }
}
