package io.deviceidentity.auth.writebehind;

import java.time.Duration;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.jboss.logging.Logger;

/**
 * Writes that follow the answer instead of delaying it: a bounded queue that never blocks the caller (a full queue
 * refuses, and the caller counts the drop under its own metric), drained by one thread of its own in batches of at
 * most {@code batchSize}, in the order they were queued. The service's three batched writes use it: fast-path
 * verifiers, legacy upgrades and failure counts.
 *
 * <p>Two ways to wake: {@link #draining} writes as soon as something waits (a verifier written sooner is a bcrypt
 * saved sooner); {@link #every} writes what gathered once per interval, counted from the end of the previous round,
 * so that many failures on one key become one row of one statement. A {@link Sink} that reports a failed batch ends
 * the round: what it {@link #keep}s waits for the next round, ahead of the queue and outside its bound, so a database
 * outage loses nothing already taken.
 *
 * <p>{@link #close()} stops the thread and then drains on the caller's thread until the queue is empty or a batch
 * fails (the database is gone too): what was queued before a shutdown is written, and a dead database cannot hold the
 * shutdown longer than one failed batch.
 */
public final class WriteBehind<T> implements AutoCloseable {

    /** Writes one batch, counts its outcomes under its own metrics; false when the batch failed. */
    @FunctionalInterface
    public interface Sink<T> {
        boolean write(List<T> batch);
    }

    private static final Logger LOG = Logger.getLogger(WriteBehind.class);
    /** How often an idle draining thread looks whether it is being closed. */
    private static final long IDLE_POLL_MILLIS = 200;

    private final String name;
    private final BlockingQueue<T> queue;
    private final ArrayDeque<T> kept = new ArrayDeque<>();
    private final int batchSize;
    private final Duration interval;
    private final Sink<T> sink;
    private final Runnable afterRound;
    private final Object roundLock = new Object();
    private final CountDownLatch closing = new CountDownLatch(1);
    private final Object startLock = new Object();
    private Thread thread;

    private WriteBehind(String name, int capacity, int batchSize, Duration interval, Sink<T> sink,
            Runnable afterRound) {
        if (capacity < 1 || batchSize < 1) {
            throw new IllegalArgumentException(name + ": capacity and batch size must be at least 1");
        }
        this.name = name;
        this.queue = new ArrayBlockingQueue<>(capacity);
        this.batchSize = batchSize;
        this.interval = interval;
        this.sink = sink;
        this.afterRound = afterRound;
    }

    /** Writes as soon as something is queued: whatever waits by then, up to {@code batchSize}, in one batch. */
    public static <T> WriteBehind<T> draining(String name, int capacity, int batchSize, Sink<T> sink) {
        return new WriteBehind<>(name, capacity, batchSize, Duration.ZERO, sink, () -> { });
    }

    /**
     * Once per {@code interval}, writes everything queued, batch after batch, then runs {@code afterRound} (even when
     * nothing was queued: housekeeping that has to happen whether or not there were writes).
     */
    public static <T> WriteBehind<T> every(String name, Duration interval, int capacity, int batchSize,
            Sink<T> sink, Runnable afterRound) {
        if (interval.isZero() || interval.isNegative()) {
            throw new IllegalArgumentException(name + ": the interval must be positive");
        }
        return new WriteBehind<>(name, capacity, batchSize, interval, sink, afterRound);
    }

    /**
     * Queues one write; never blocks: false when the queue is full. A draining write-behind starts its thread on the
     * first offer; one that writes every interval is started by its owner ({@link #start}), which may instead
     * {@link #flush} it itself.
     */
    public boolean offer(T item) {
        if (interval.isZero()) {
            start();
        }
        return queue.offer(item);
    }

    /**
     * For the sink, about an item of the batch it was given: write it again next round. Outside the queue's bound,
     * so a failed batch is never the one dropped.
     */
    public void keep(T item) {
        synchronized (roundLock) {
            kept.add(item);
        }
    }

    /** Writes waiting now, not yet written. */
    public int queued() {
        return queue.size();
    }

    /** Starts the one thread, once; until then writes wait in the queue (a caller may {@link #flush} them itself). */
    public void start() {
        synchronized (startLock) {
            if (thread == null && closing.getCount() > 0) {
                thread = new Thread(interval.isZero() ? this::drainWhileOpen : this::roundEveryInterval, name);
                thread.setDaemon(true);
                thread.start();
            }
        }
    }

    /** Writes everything queued now, on the caller's thread, until a batch fails; then the round's housekeeping. */
    public void flush() {
        synchronized (roundLock) {
            List<T> batch = new ArrayList<>(batchSize);
            while (take(batch) && write(batch)) {
                batch.clear();
            }
            afterRound.run();
        }
    }

    private boolean take(List<T> batch) {
        while (batch.size() < batchSize && !kept.isEmpty()) {
            batch.add(kept.poll());
        }
        queue.drainTo(batch, batchSize - batch.size());
        return !batch.isEmpty();
    }

    private boolean write(List<T> batch) {
        try {
            return sink.write(batch);
        } catch (RuntimeException e) {
            // A sink counts and logs its own failures; one that escaped must not end the thread.
            LOG.warnf("%s: a batch of %d was not written (%s)", name, batch.size(), e.getClass().getSimpleName());
            return false;
        }
    }

    private void roundEveryInterval() {
        try {
            while (!closing.await(interval.toNanos(), TimeUnit.NANOSECONDS)) {
                flush();
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void drainWhileOpen() {
        List<T> batch = new ArrayList<>(batchSize);
        try {
            while (closing.getCount() > 0) {
                T first = queue.poll(IDLE_POLL_MILLIS, TimeUnit.MILLISECONDS);
                if (first != null) {
                    synchronized (roundLock) {
                        batch.add(first);
                        take(batch);
                        write(batch);
                        batch.clear();
                    }
                }
            }
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    /** Stops the thread after the batch it is writing, then writes what is still queued (see the class comment). */
    @Override
    public void close() {
        Thread running;
        synchronized (startLock) {
            closing.countDown();
            running = thread;
        }
        if (running != null) {
            try {
                running.join(TimeUnit.SECONDS.toMillis(30));
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
            }
        }
        int left;
        synchronized (roundLock) {
            flush();
            left = queue.size() + kept.size();
        }
        if (left > 0) {
            LOG.warnf("%s: %d writes not written at shutdown (the last batch failed)", name, left);
        }
    }
}
