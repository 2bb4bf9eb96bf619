package io.deviceidentity.overload;

import java.util.concurrent.atomic.AtomicInteger;

/**
 * Who may hold which places of a lane: {@link Share#KNOWN} work every place, {@link Share#OTHER} work at most the
 * threads not reserved for known work (running or waiting), and a bulk step (an import's batch) only while it leaves
 * a thread free for the requests the lane exists for. The partitioned limiter of Netflix's concurrency-limits, sized
 * by threads instead of a measured limit.
 */
final class Partitions {

    private final int concurrency;
    private final int otherLimit;
    private final AtomicInteger otherInLane = new AtomicInteger();

    /** {@code reservedForKnown}: the fraction of the threads only known work may use ({@link #reservedThreads}). */
    static Partitions reserving(int concurrency, double reservedForKnown) {
        if (reservedForKnown < 0 || reservedForKnown > 1) {
            throw new IllegalArgumentException("identity.overload.database.reserved-for-known must be between 0 and 1");
        }
        return new Partitions(concurrency, concurrency - reservedThreads(concurrency, reservedForKnown));
    }

    /** No limit on either share (a lane whose work is all alike). */
    static Partitions none(int concurrency) {
        return new Partitions(concurrency, Integer.MAX_VALUE);
    }

    private Partitions(int concurrency, int otherLimit) {
        this.concurrency = concurrency;
        this.otherLimit = otherLimit;
    }

    /** Threads only known work may use: the fraction rounded up, at least one of two or more, never all. */
    static int reservedThreads(int concurrency, double fraction) {
        if (fraction <= 0 || concurrency < 2) {
            return 0;
        }
        return Math.min(concurrency - 1, Math.max(1, (int) Math.ceil(concurrency * fraction)));
    }

    /** Takes a place in {@code share}; false when its places are all held ({@link Refusal#SHARE_FULL}). */
    boolean enter(Share share) {
        if (share == Share.KNOWN) {
            return true;
        }
        if (otherInLane.incrementAndGet() > otherLimit) {
            otherInLane.decrementAndGet();
            return false;
        }
        return true;
    }

    /** Gives the place back once the step has finished or was refused, whichever way. */
    void leave(Share share) {
        if (share == Share.OTHER) {
            otherInLane.decrementAndGet();
        }
    }

    /** Steps in the lane below which a bulk step may start: all threads but one (with a single thread, while idle). */
    int bulkLimit() {
        return Math.max(1, concurrency - 1);
    }

    /** Threads only known work may use. */
    int reserved() {
        return Math.max(0, concurrency - otherLimit);
    }
}
