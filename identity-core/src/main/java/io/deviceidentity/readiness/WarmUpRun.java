package io.deviceidentity.readiness;

import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

import org.jboss.logging.Logger;

/**
 * Runs a {@link WarmUpPlan}'s steps in order, each until it succeeds once, waiting between tries (0.5 s, doubling up
 * to 5 s: a database that is still starting is asked again soon, one that is down is not hammered). Plain Java, so
 * that the retry rule is tested without an application (the waiting is passed in).
 */
public final class WarmUpRun {

    private static final Logger LOG = Logger.getLogger(WarmUpRun.class);
    static final long FIRST_RETRY_MILLIS = 500;
    static final long LONGEST_RETRY_MILLIS = 5_000;

    /** {@link #tryNext}: every step has succeeded. */
    public static final long DONE = 0;
    /** {@link #tryNext}: interrupted, the service is stopping. */
    public static final long STOPPED = -1;

    /** Waits between tries: {@code Thread::sleep} in the service, a recorder in tests. */
    @FunctionalInterface
    public interface Pause {
        void millis(long millis) throws InterruptedException;
    }

    private final List<WarmUpStep> steps;
    private final Pause pause;
    private final LongSupplier clock;
    private volatile String current;
    private volatile String lastFailure;
    private volatile boolean done;
    private int next;
    private int attempt;
    private long retry = FIRST_RETRY_MILLIS;
    private long started = Long.MIN_VALUE;

    public WarmUpRun(List<WarmUpStep> steps, Pause pause, LongSupplier clock) {
        this.steps = List.copyOf(steps);
        this.pause = pause;
        this.clock = clock;
        this.current = steps.isEmpty() ? null : steps.get(0).name();
    }

    /** Runs every step; returns when all succeeded, or early when interrupted (the service is stopping). */
    public void run() {
        for (long wait = tryNext(); wait != DONE && wait != STOPPED; wait = tryNext()) {
            try {
                pause.millis(wait);
            } catch (InterruptedException stopping) {
                Thread.currentThread().interrupt();
                return;
            }
        }
    }

    /**
     * Tries the current step once, and the ones after it while they succeed: {@link #DONE}, {@link #STOPPED}, or how
     * many milliseconds to wait before the next try (a step failed). {@link #run} waits with its {@code Pause}; the
     * service waits on a timer, holding no thread between tries.
     */
    public synchronized long tryNext() {
        if (started == Long.MIN_VALUE) {
            started = clock.getAsLong();
        }
        while (next < steps.size()) {
            WarmUpStep step = steps.get(next);
            current = step.name();
            attempt++;
            long tried = clock.getAsLong();
            try {
                step.run();
            } catch (InterruptedException stopping) {
                Thread.currentThread().interrupt();
                return STOPPED;
            } catch (Exception failure) {
                // The message only: a failure here is the database not being reachable yet, not a defect, and
                // a stack trace every few seconds while it starts would bury the one line that matters.
                lastFailure = step.name() + ": " + failure;
                if (attempt == 1 || attempt % 10 == 0) {
                    LOG.warnf("warm-up step %s failed (try %d, not ready until it succeeds; retrying every %d s"
                            + " at most): %s", step.name(), attempt, LONGEST_RETRY_MILLIS / 1000, failure);
                }
                long wait = retry;
                retry = Math.min(LONGEST_RETRY_MILLIS, retry * 2);
                return wait;
            }
            lastFailure = null;
            LOG.infof("warm-up step %s took %d ms", step.name(), elapsedMillis(tried));
            next++;
            attempt = 0;
            retry = FIRST_RETRY_MILLIS;
        }
        if (!done) {
            current = null;
            lastFailure = null;
            done = true;
            LOG.infof("warm-up done in %d ms (%d steps): ready", elapsedMillis(started), steps.size());
        }
        return DONE;
    }

    private long elapsedMillis(long startedNanos) {
        return TimeUnit.NANOSECONDS.toMillis(clock.getAsLong() - startedNanos);
    }

    public boolean done() {
        return done;
    }

    /** The step running or being retried; null once done. */
    public String current() {
        return current;
    }

    /** Why the current step's last try failed; null when it has not failed. */
    public String lastFailure() {
        return lastFailure;
    }
}
