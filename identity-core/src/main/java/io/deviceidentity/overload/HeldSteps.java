package io.deviceidentity.overload;

import java.util.Arrays;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

/**
 * The database lane's request steps that wait on the database, each from when it counts as waiting and on which path
 * (the pool it took its connection from: the primary's through PgBouncer, or a standby), and when a step last
 * finished on each path. {@link DatabaseAttribution} reads two things from them: how long the steps that would make
 * the lane the database's have waited ({@link #deciding}), and how long a step has waited on a path where no step has
 * finished since it began ({@link #silentFor}): a path the database stopped answering while another (a standby)
 * still does.
 */
final class HeldSteps {

    /**
     * A step waiting on the database: from {@code since} (the lane's clock), on {@code path}; {@code onThePath}: waiting
     * for the path itself (a statement, a validation), not for a connection this service's own holders have;
     * {@code inAnOutage}: it began while the database was failing.
     */
    private record Held(long since, Path path, boolean onThePath, boolean inAnOutage) {
    }

    /** A path by identity: a pool's own equals and hashCode are not for this (a proxy's would run its handler). */
    private record Path(Object pool) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Path path && path.pool == pool;
        }

        @Override
        public int hashCode() {
            return System.identityHashCode(pool);
        }
    }

    private final int threads;
    private final LongSupplier clock;
    private final Map<Thread, Held> held = new ConcurrentHashMap<>();
    private final Map<Path, Long> lastFinishedOn = new ConcurrentHashMap<>();
    /** When a request step last finished on any path (the lane's clock). */
    private volatile long lastFinished;

    HeldSteps(int threads, LongSupplier clock, long quietSince) {
        this.threads = threads;
        this.clock = clock;
        this.lastFinished = quietSince;
    }

    /**
     * The step on this thread waits on {@code path} and counts as waiting from {@code since}; {@code onThePath} and
     * {@code inAnOutage} (see {@link Held}).
     */
    void waiting(Object path, long since, boolean onThePath, boolean inAnOutage) {
        held.put(Thread.currentThread(), new Held(since, new Path(path), onThePath, inAnOutage));
    }

    /** Whether a step that began while the database was failing still waits on it. */
    boolean anyFromAnOutage() {
        for (Held step : held.values()) {
            if (step.inAnOutage()) {
                return true;
            }
        }
        return false;
    }

    /** The step on this thread finished (answered or failed): a finish on the path it waited on. */
    void finished() {
        long now = clock.getAsLong();
        lastFinished = now;
        Held step = held.remove(Thread.currentThread());
        if (step != null) {
            lastFinishedOn.put(step.path(), now);
        }
    }

    /** How long the step on this thread has waited on the database (negative or none: it does not wait on it). */
    long waitedHere() {
        Held step = held.get(Thread.currentThread());
        return step == null ? Long.MIN_VALUE : clock.getAsLong() - step.since();
    }

    /** How long ago a request step last finished, on any path. */
    long sinceLastFinish() {
        return clock.getAsLong() - lastFinished;
    }

    /**
     * How long the step that decides the lane has waited on the database: the shortest wait among the longest
     * waiting more than half of the threads (negative or none: fewer than that many steps are waiting on it).
     */
    long deciding() {
        int needed = threads / 2 + 1;
        long now = clock.getAsLong();
        long[] waits = new long[threads + 1];
        int n = 0;
        for (Held step : held.values()) {
            if (n == waits.length) {
                break;
            }
            waits[n++] = now - step.since();
        }
        if (n < needed) {
            return Long.MIN_VALUE;
        }
        Arrays.sort(waits, 0, n);
        return waits[n - needed];
    }

    /**
     * The longest wait of a step on a path where no step has finished since that step began waiting (negative or
     * none: every waiting step's path has answered another step meanwhile, as a busy database does). A step waiting
     * for a connection that every holder of the pool keeps says nothing of the path and is left out.
     */
    long silentFor() {
        long now = clock.getAsLong();
        long longest = Long.MIN_VALUE;
        for (Held step : held.values()) {
            Long finished = lastFinishedOn.get(step.path());
            if (step.onThePath() && (finished == null || finished <= step.since())) {
                longest = Math.max(longest, now - step.since());
            }
        }
        return longest;
    }
}
