package io.deviceidentity.registration.kicks;

import java.util.concurrent.Executor;
import java.util.concurrent.atomic.AtomicBoolean;

/**
 * Runs a replica's delivery rounds one at a time, on an executor it is given: a poll that comes while a round runs is
 * skipped (the round is doing what the poll would), while a nudge that comes then is kept and run right after the
 * round, since its kick may have committed after the round's claim. So no two rounds of one replica overlap, and a
 * kick recorded here never waits for the next poll.
 */
final class OneRoundAtATime {

    private final Executor executor;
    private final Runnable round;
    private final AtomicBoolean running = new AtomicBoolean();
    private final AtomicBoolean nudged = new AtomicBoolean();

    OneRoundAtATime(Executor executor, Runnable round) {
        this.executor = executor;
        this.round = round;
    }

    /** The poll: a round now, unless one is running. */
    void poll() {
        if (running.compareAndSet(false, true)) {
            executor.execute(this::runWhileNudged);
        }
    }

    /** A kick was just committed: a round now, or right after the running one. */
    void nudge() {
        nudged.set(true);
        if (running.compareAndSet(false, true)) {
            executor.execute(this::runWhileNudged);
        }
    }

    private void runWhileNudged() {
        do {
            do {
                nudged.set(false);
                round.run();
            } while (nudged.get());
            running.set(false);
            // A nudge between the last check and the release found the round still running: it is run here.
        } while (nudged.get() && running.compareAndSet(false, true));
    }
}
