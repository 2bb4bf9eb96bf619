package io.deviceidentity.auth.ratelimit;

import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicInteger;

import io.deviceidentity.auth.ratelimit.FailureStore.Key;

/**
 * One failure counter as this replica sees it: the shared total it last learnt (from a read or from its own write),
 * plus its own failures not yet in it, split into those being written now and those waiting for the next write.
 */
final class SharedCount {

    final Key key;
    volatile int shared;
    volatile long syncedAt = Long.MIN_VALUE;
    final AtomicInteger pending = new AtomicInteger();
    final AtomicInteger writing = new AtomicInteger();
    /** Waiting for the writer (queued or kept after a failed write): queued once, however many failures it gathers. */
    final AtomicBoolean queued = new AtomicBoolean();

    SharedCount(Key key) {
        this.key = key;
    }

    int total() {
        return shared + writing.get() + pending.get();
    }

    synchronized void learnt(int total, long at) {
        // Counts only grow within a window: a read that raced with a write of ours must not lower them.
        shared = Math.max(shared, total);
        syncedAt = at;
    }
}
