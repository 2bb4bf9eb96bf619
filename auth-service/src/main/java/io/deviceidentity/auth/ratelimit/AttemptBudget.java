package io.deviceidentity.auth.ratelimit;

import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.LongSupplier;

import javax.sql.DataSource;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import com.github.benmanes.caffeine.cache.Cache;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.ratelimit.FailureStore.Key;
import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.overload.DatabaseWork;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.overload.PooledConnections;
import io.deviceidentity.overload.Share;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Failed checks per (client id, source address) and per client id, each charged at its cost ({@link Charge}: a
 * wrong password against a cost-14 row counts 16), shared by every replica through PostgreSQL
 * (table {@code authn_failures}) and kept across restarts, in a sliding window of {@code period} (see {@link #within}). Consulted only before a cold check (bcrypt) of a device
 * that exists: the fast path comes first, so failures can never stop a device that presents a credential it has
 * used before. Only failures are written, and never on the request's path: each replica adds its failures to
 * in-memory counters, and one thread writes them every {@value #FLUSH_MILLIS} ms in one statement per batch
 * (aggregated: a spray of N failures on K keys is one statement of K rows, not N writes); the statement returns the
 * cluster-wide totals, which replace this replica's view.
 *
 * <p>The bound across replicas: a replica decides on the last total it read or wrote (at most {@value #REFRESH_MILLIS}
 * ms old, re-read on the lane before the check otherwise) plus its own failures since. So a key's limit L is exceeded
 * by at most what the other replicas admit for it between two of their refreshes, each at most L, and in practice
 * at most their bcrypt capacity for one key in one refresh: L + (replicas − 1) × min(L, bcrypt/s). When too many keys
 * wait for the writer ({@value #MAX_UNFLUSHED}), new ones stay local (counted in
 * {@code identity_budget_writes_dropped_total}): this replica still enforces them, the others do not see them. When
 * the shared counts cannot be read, the replica decides on its own counts.
 */
@ApplicationScoped
public class AttemptBudget {

    private static final Logger LOG = Logger.getLogger(AttemptBudget.class);
    static final long FLUSH_MILLIS = 200;
    static final long REFRESH_MILLIS = 1000;
    static final int MAX_UNFLUSHED = 20_000;
    private static final int BATCH = 1000;

    /** One counter as this replica sees it: the shared total it last learnt, plus its own failures not yet in it. */
    static final class Count {
        volatile int shared;
        volatile long syncedAt = Long.MIN_VALUE;
        final AtomicInteger pending = new AtomicInteger();
        final AtomicInteger writing = new AtomicInteger();

        int total() {
            return shared + writing.get() + pending.get();
        }

        synchronized void learnt(int total, long at) {
            // Counts only grow within a window: a read that raced with a write of ours must not lower them.
            shared = Math.max(shared, total);
            syncedAt = at;
        }
    }

    private final AuthConfig.RateLimit config;
    private final DataSource reads;
    private final DataSource writes;
    private final Lane database;
    private final LongSupplier wallMillis;
    private final LongSupplier nanos;
    private final long periodSeconds;
    private final Cache<Key, Count> counts;
    private final Map<Key, Count> unflushed = new ConcurrentHashMap<>();
    private final Object flushLock = new Object();
    private final Counter written;
    private final Counter failed;
    private final Counter dropped;
    private final ScheduledExecutorService flusher;
    private long forgottenBefore = Long.MIN_VALUE;

    /**
     * Reads through the service's pool on the lane; writes through the one-connection datasource the verifier writer
     * uses too ({@code quarkus.datasource."verifiers".*}): both write batches of a few milliseconds off the request
     * path, and a write never takes a connection from the reads.
     */
    @Inject
    public AttemptBudget(AuthConfig config, AgroalDataSource reads,
            @io.quarkus.agroal.DataSource("verifiers") AgroalDataSource writes, @DatabaseWork Lane database,
            MeterRegistry registry) {
        this(config.rateLimit(), reads, writes, database, System::currentTimeMillis, System::nanoTime, registry, true);
    }

    /** With its own clocks, and without the writer thread when {@code flushEvery} is false (tests call {@link #flush}). */
    public AttemptBudget(AuthConfig.RateLimit config, DataSource reads, DataSource writes, Lane database,
            LongSupplier wallMillis, LongSupplier nanos, MeterRegistry registry, boolean flushEvery) {
        this.config = config;
        this.reads = reads;
        this.writes = writes;
        this.database = database;
        this.wallMillis = wallMillis;
        this.nanos = nanos;
        this.periodSeconds = Math.max(1, config.period().toSeconds());
        this.counts = BoundedCaches.bounded(config.maxTrackedDevices(), config.period().multipliedBy(2));
        this.written = registry.counter(MetricNames.BUDGET_WRITES, MetricNames.TAG_RESULT, "written");
        this.failed = registry.counter(MetricNames.BUDGET_WRITES, MetricNames.TAG_RESULT, "failed");
        this.dropped = registry.counter(MetricNames.BUDGET_WRITES_DROPPED);
        if (flushEvery && config.enabled()) {
            flusher = Executors.newSingleThreadScheduledExecutor(runnable -> {
                Thread thread = new Thread(runnable, "failure-writer");
                thread.setDaemon(true);
                return thread;
            });
            flusher.scheduleWithFixedDelay(this::flushQuietly, FLUSH_MILLIS, FLUSH_MILLIS, TimeUnit.MILLISECONDS);
        } else {
            flusher = null;
        }
    }

    /**
     * Whether (client id, source) may have one more cold check: under both its own limit and the client id's ceiling.
     * Completes at once when this replica's counts are fresh; otherwise after one read of the shared counts on the
     * database lane (the device is known to exist, so in the known share).
     */
    public CompletionStage<Boolean> allows(String clientId, String source, Deadline deadline) {
        if (!config.enabled()) {
            return CompletableFuture.completedFuture(true);
        }
        long wall = wallMillis.getAsLong();
        long window = window(wall);
        Count[] counts = counts(clientId, source, window);
        double previousWeight = 1 - (wall % (periodSeconds * 1000)) / (periodSeconds * 1000.0);
        if (fresh(counts)) {
            return CompletableFuture.completedFuture(within(counts, previousWeight));
        }
        return database.run(deadline, Share.KNOWN, () -> {
            try (Connection connection = PooledConnections.take(reads)) {
                return FailureStore.read(connection, clientId, source, window);
            }
        }).handle((totals, failure) -> {
            if (totals != null) {
                long at = nanos.getAsLong();
                for (int i = 0; i < counts.length; i++) {
                    counts[i].learnt(totals[i], at);
                }
            }
            // Unreadable shared counts: decide on this replica's own (they bound what it does).
            return within(counts, previousWeight);
        });
    }

    /**
     * Whether {@link #allows} would decide at once, from counts this replica learnt lately, rather than read the
     * shared ones first (always when the budget is off). The read is a database step like the credential's: a caller
     * that could not use a "yes" now (bcrypt saturated) skips it.
     */
    public boolean decidesWithoutReading(String clientId, String source) {
        if (!config.enabled()) {
            return true;
        }
        long window = window(wallMillis.getAsLong());
        long now = nanos.getAsLong();
        // Looked up, not created: a device seen for the first time has no counts yet, and a refused check adds none.
        for (Key key : keys(clientId, source, window)) {
            Count count = counts.getIfPresent(key);
            if (count == null || !fresh(count, now)) {
                return false;
            }
        }
        return true;
    }

    private static Key[] keys(String clientId, String source, long window) {
        return new Key[] {new Key(clientId, source, window), new Key(clientId, FailureStore.ANY_SOURCE, window),
                new Key(clientId, source, window - 1), new Key(clientId, FailureStore.ANY_SOURCE, window - 1)};
    }

    /** The pair's and the client id's counts, this window's and the previous one's, in {@link #within}'s order. */
    private Count[] counts(String clientId, String source, long window) {
        Key[] keys = keys(clientId, source, window);
        Count[] counts = new Count[keys.length];
        for (int i = 0; i < keys.length; i++) {
            counts[i] = count(keys[i]);
        }
        return counts;
    }

    private boolean fresh(Count[] counts) {
        long now = nanos.getAsLong();
        for (Count count : counts) {
            if (!fresh(count, now)) {
                return false;
            }
        }
        return true;
    }

    /** One failed check of (client id, source) that cost no hash (a wrong username): charged one. */
    public void failed(String clientId, String source) {
        failed(clientId, source, Charge.ONE);
    }

    /**
     * One failed check of (client id, source), charged {@code charge} ({@link Charge}: a wrong password against a
     * cost-14 row is 16, so such rows get a sixteenth of the guesses): counted here at once, shared with the next
     * write.
     */
    public void failed(String clientId, String source, int charge) {
        if (!config.enabled()) {
            return;
        }
        long window = window(wallMillis.getAsLong());
        charge(new Key(clientId, source, window), charge);
        charge(new Key(clientId, FailureStore.ANY_SOURCE, window), charge);
    }

    private void charge(Key key, int charge) {
        Count count = count(key);
        count.pending.addAndGet(charge);
        if (unflushed.size() >= MAX_UNFLUSHED && !unflushed.containsKey(key)) {
            dropped.increment();
            return;
        }
        unflushed.putIfAbsent(key, count);
    }

    /**
     * A sliding window, approximated from two fixed ones (as in Cloudflare's rate limiter): this window's failures plus
     * the previous window's, weighted by the part of it the sliding window still covers, rounded up. So the budget does
     * not come back all at once at a window's end, and L failures are never followed by L more at once.
     */
    private boolean within(Count[] counts, double previousWeight) {
        long pair = counts[0].total() + (long) Math.ceil(counts[2].total() * previousWeight);
        long client = counts[1].total() + (long) Math.ceil(counts[3].total() * previousWeight);
        return pair < config.attempts() && client < config.clientAttempts();
    }

    private boolean fresh(Count count, long now) {
        return count.syncedAt != Long.MIN_VALUE
                && now - count.syncedAt <= TimeUnit.MILLISECONDS.toNanos(REFRESH_MILLIS);
    }

    private Count count(Key key) {
        return counts.get(key, k -> new Count());
    }

    private long window(long wall) {
        return wall / 1000 / periodSeconds;
    }

    private void flushQuietly() {
        try {
            flush();
        } catch (RuntimeException e) {
            LOG.warnf("failure counts not written: %s", e.getClass().getSimpleName());
        }
    }

    /** Writes every failure counted since the last write, and forgets the windows that have ended. */
    public void flush() {
        synchronized (flushLock) {
            while (!unflushed.isEmpty()) {
                Map<Key, Integer> batch = new HashMap<>();
                Map<Key, Count> batchCounts = new HashMap<>();
                for (Key key : unflushed.keySet()) {
                    if (batch.size() == BATCH) {
                        break;
                    }
                    Count count = unflushed.remove(key);
                    int added = count == null ? 0 : count.pending.getAndSet(0);
                    if (added > 0) {
                        count.writing.addAndGet(added);
                        batch.put(key, added);
                        batchCounts.put(key, count);
                    }
                }
                if (batch.isEmpty() || !write(batch, batchCounts)) {
                    break;
                }
            }
            forgetEndedWindows();
        }
    }

    private boolean write(Map<Key, Integer> batch, Map<Key, Count> batchCounts) {
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
                unflushed.putIfAbsent(key, count);
            });
            failed.increment();
            LOG.warnf("could not share %d failure counts (%s); kept for the next write", batch.size(),
                    e instanceof SQLException sql ? sql.getSQLState() : e.getClass().getSimpleName());
            return false;
        }
    }

    /** Windows before the previous one no longer count. */
    private void forgetEndedWindows() {
        long stillCounted = window(wallMillis.getAsLong()) - 1;
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

    /** The budget's period, for answers that say when to come back. */
    public Duration period() {
        return config.period();
    }

    @PreDestroy
    void stop() {
        if (flusher != null) {
            flusher.shutdown();
            flushQuietly();
        }
    }
}
