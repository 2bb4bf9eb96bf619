package io.deviceidentity.overload;

import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

/**
 * What is in a lane at this moment, counted by the lane and read by its policy and its meters. A step is in the
 * lane from its admission until its thread is released; running from when a thread takes it. Counted here rather
 * than read from the executor, whose own counts take a lock.
 */
final class Occupancy {

    private final AtomicInteger inLane = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();
    /** Units of the steps in the lane (waiting and running), in {@link StepTime} ticks. */
    private final AtomicLong ticksInLane = new AtomicLong();
    /** When a step last started or finished: what tells a stalled lane from a busy one. */
    private final AtomicLong lastProgress;

    Occupancy(LongSupplier clock) {
        this.lastProgress = new AtomicLong(clock.getAsLong());
    }

    int inLane() {
        return inLane.get();
    }

    /** Takes a place if the lane still holds {@code seen} steps (the count the admission was decided on). */
    boolean enter(int seen, long ticks) {
        if (!inLane.compareAndSet(seen, seen + 1)) {
            return false;
        }
        ticksInLane.addAndGet(ticks);
        return true;
    }

    /** A thread took a step. Counted as running while still in the lane: no admission in between sees a free thread. */
    void started(long now) {
        running.incrementAndGet();
        lastProgress.set(now);
    }

    /** A step's thread is released (it ran, or was skipped at start). */
    void finished(long ticks, long now) {
        lastProgress.set(now);
        running.decrementAndGet();
        ticksInLane.addAndGet(-ticks);
        inLane.decrementAndGet();
    }

    /** A step that entered and never reached a thread (the executor refused it: the service is stopping). */
    void abandoned(long ticks) {
        ticksInLane.addAndGet(-ticks);
        inLane.decrementAndGet();
    }

    int running() {
        return running.get();
    }

    /** Admitted and not yet taken by a thread. */
    int waiting() {
        return Math.max(0, inLane.get() - running.get());
    }

    long ticksInLane() {
        return ticksInLane.get();
    }

    long lastProgress() {
        return lastProgress.get();
    }
}
