package io.deviceidentity.auth.ratelimit;

import java.sql.Connection;
import java.sql.SQLException;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.function.LongSupplier;

import javax.sql.DataSource;

import org.jboss.logging.Logger;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.ratelimit.FailureStore.Key;
import io.deviceidentity.auth.writebehind.WriteBehind;
import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Shares this replica's failures with the others: a {@link WriteBehind} that every {@code write-interval} (200 ms)
 * writes the counters charged since its last round, at most {@code write-batch} (1000) per statement, aggregated (a
 * spray of N failures on K keys is one statement of K rows, not N writes). The statement returns the cluster-wide
 * totals, which replace this replica's view. A counter is queued once however often it is charged; when
 * {@code write-queue} (20 000) wait, a new one stays local (counted in {@code identity_budget_writes_dropped_total}) until it is charged again with room to
 * spare. A batch that fails is kept for the next round, and this replica's counts hold meanwhile. After each round,
 * the windows that can no longer refuse anything are deleted.
 */
final class FailureWriter {

    private static final Logger LOG = Logger.getLogger(FailureWriter.class);

    private final DataSource writes;
    private final LongSupplier nanos;
    private final LongSupplier currentWindow;
    private final WriteBehind<SharedCount> queue;
    private final Counter written;
    private final Counter failed;
    private final Counter dropped;
    private long forgottenBefore = Long.MIN_VALUE;

    FailureWriter(AuthConfig.RateLimit config, DataSource writes, LongSupplier nanos, LongSupplier currentWindow,
            MeterRegistry registry) {
        this.writes = writes;
        this.nanos = nanos;
        this.currentWindow = currentWindow;
        this.queue = WriteBehind.every("failure-writer", config.writeInterval(), config.writeQueue(),
                config.writeBatch(), this::write, this::forgetEndedWindows);
        this.written = registry.counter(MetricNames.BUDGET_WRITES, MetricNames.TAG_RESULT, "written");
        this.failed = registry.counter(MetricNames.BUDGET_WRITES, MetricNames.TAG_RESULT, "failed");
        this.dropped = registry.counter(MetricNames.BUDGET_WRITES_DROPPED);
    }

    /** Writes every interval from now on, on a thread of its own. */
    void start() {
        queue.start();
    }

    /** Adds {@code charge} to the counter and queues it for the next write, unless it waits already. */
    void charge(SharedCount count, int charge) {
        count.pending.addAndGet(charge);
        if (count.queued.compareAndSet(false, true) && !queue.offer(count)) {
            count.queued.set(false);
            dropped.increment();
        }
    }

    /** Writes every failure counted since the last write, and forgets the windows that have ended. */
    void flush() {
        queue.flush();
    }

    /** Stops the thread, after writing what waits. */
    void stop() {
        queue.close();
    }

    private boolean write(List<SharedCount> counts) {
        Map<Key, Integer> batch = new HashMap<>();
        Map<Key, SharedCount> batchCounts = new HashMap<>();
        for (SharedCount count : counts) {
            // Unqueued before its pending failures are taken: a failure charged from now on queues it again.
            count.queued.set(false);
            int added = count.pending.getAndSet(0);
            if (added > 0) {
                count.writing.addAndGet(added);
                batch.put(count.key, added);
                batchCounts.put(count.key, count);
            }
        }
        if (batch.isEmpty()) {
            return true;
        }
        try (Connection connection = writes.getConnection()) {
            Map<Key, Integer> totals = FailureStore.add(connection, batch);
            long at = nanos.getAsLong();
            batchCounts.forEach((key, count) -> {
                count.learnt(totals.getOrDefault(key, 0), at);
                count.writing.addAndGet(-batch.get(key));
            });
            written.increment();
            return true;
        } catch (SQLException | RuntimeException e) {
            // Kept for the next write; this replica's counts still hold meanwhile.
            batchCounts.forEach((key, count) -> {
                int added = batch.get(key);
                count.writing.addAndGet(-added);
                count.pending.addAndGet(added);
                if (count.queued.compareAndSet(false, true)) {
                    queue.keep(count);
                }
            });
            failed.increment();
            LOG.warnf("could not share %d failure counts (%s); kept for the next write", batch.size(),
                    e instanceof SQLException sql ? sql.getSQLState() : e.getClass().getSimpleName());
            return false;
        }
    }

    /** Windows before the previous one no longer count. */
    private void forgetEndedWindows() {
        long stillCounted = currentWindow.getAsLong() - 1;
        if (stillCounted <= forgottenBefore) {
            return;
        }
        try (Connection connection = writes.getConnection()) {
            FailureStore.forgetBefore(connection, stillCounted);
            forgottenBefore = stillCounted;
        } catch (SQLException | RuntimeException e) {
            LOG.debugf("ended failure windows not deleted yet: %s", e.getClass().getSimpleName());
        }
    }
}
