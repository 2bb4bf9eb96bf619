package io.deviceidentity.overload;

import java.util.function.LongSupplier;

/**
 * Admission by waiting time (controlled delay): how long a request may wait for a lane thread at this moment.
 *
 * <p>The rule, after Meta's "Fail at Scale" (ACM Queue 2015; folly's {@code Codel}: interval 100 ms, drop work that
 * waited too long once the queue has not drained for an interval) and WeChat's DAGOR (SoCC 2018: admit by queuing
 * time, not by queue length):
 * <ul>
 *   <li>while the queue has been empty at some moment within the last {@code interval}, it is absorbing a burst:
 *       a request may wait up to {@code maxWait} (about a second);</li>
 *   <li>once it has stayed non-empty for a whole {@code interval}, the queue is standing, which means overload:
 *       a request may wait only {@code targetWait} (about two hash times);</li>
 *   <li>a request that cannot start within its allowance is refused at once, and one that is taken off the queue
 *       after waiting longer than the allowance it was admitted under is refused instead of hashed.</li>
 * </ul>
 * "Drained" means a request found a thread free: capacity to spare. A queue that empties while every thread is busy,
 * or because stale work was refused, is still overloaded; otherwise the regime would flap between the burst allowance
 * and overload every few hashes, and each flap would let a second's worth of requests wait.
 * Why not a queue sized "deadline × throughput": such a queue is a standing queue at every overload; it holds
 * seconds of work, and behind EMQX, whose clock starts when a request enters <em>its</em> queue, every answer then
 * comes too late to be read. Keeping the wait short keeps both queues short, and the excess gets its 503 while the
 * caller is still listening.
 *
 * <p>Times are {@link System#nanoTime()} values passed in by the caller, so that tests can run on a virtual clock.
 */
public final class ControlledDelay {

    private final long maxWaitNanos;
    private final long intervalNanos;
    private final LongSupplier targetWaitNanos;
    private volatile long lastEmptyNanos;

    /**
     * @param targetWaitNanos the allowance under a standing queue, read at every decision (it may follow the
     *                        measured hash time); never more than {@code maxWaitNanos}
     */
    public ControlledDelay(long maxWaitNanos, long intervalNanos, LongSupplier targetWaitNanos, long nowNanos) {
        if (maxWaitNanos <= 0 || intervalNanos <= 0) {
            throw new IllegalArgumentException("max-wait and interval must be positive");
        }
        this.maxWaitNanos = maxWaitNanos;
        this.intervalNanos = intervalNanos;
        this.targetWaitNanos = targetWaitNanos;
        this.lastEmptyNanos = nowNanos;
    }

    /**
     * An allowance that never shortens: a lane whose waits are all short by nature (the database lane's steps take
     * about a millisecond) and whose refusals the stall and expected-wait rules decide. {@code 0}: no waiting at all.
     */
    public static ControlledDelay fixed(long maxWaitNanos) {
        return new ControlledDelay(Math.max(0, maxWaitNanos), Long.MAX_VALUE, 0);
    }

    private ControlledDelay(long maxWaitNanos, long intervalNanos, long nowNanos) {
        this.maxWaitNanos = maxWaitNanos;
        this.intervalNanos = intervalNanos;
        this.targetWaitNanos = () -> maxWaitNanos;
        this.lastEmptyNanos = nowNanos;
    }

    /** The executor had capacity to spare at {@code nowNanos}: a request found a thread free. */
    public void queueEmpty(long nowNanos) {
        lastEmptyNanos = nowNanos;
    }

    /** Whether the queue has stayed non-empty for a whole interval. */
    public boolean standing(long nowNanos) {
        return intervalNanos != Long.MAX_VALUE && nowNanos - lastEmptyNanos > intervalNanos;
    }

    /** How long a request may wait for a thread at this moment. */
    public long allowedWaitNanos(long nowNanos) {
        return standing(nowNanos) ? Math.min(targetWaitNanos.getAsLong(), maxWaitNanos) : maxWaitNanos;
    }

    /** Admission: whether a request expected to wait {@code expectedWaitNanos} may join the queue now. */
    public boolean admits(long expectedWaitNanos, long nowNanos) {
        return expectedWaitNanos <= allowedWaitNanos(nowNanos);
    }
}
