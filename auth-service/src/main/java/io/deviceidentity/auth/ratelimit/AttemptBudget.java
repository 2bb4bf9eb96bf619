package io.deviceidentity.auth.ratelimit;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

import javax.sql.DataSource;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.ratelimit.FailureStore.Key;
import io.deviceidentity.overload.DatabaseWork;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.Lane;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Failed checks per (client id, source address) and per client id, each charged at its cost ({@link Charge}: a
 * wrong password against a cost-14 row counts 16), shared by every replica through PostgreSQL
 * (table {@code authn_failures}) and kept across restarts, in a sliding window of {@code period} (see {@link #within}).
 * Consulted only before a cold check (bcrypt) of a device that exists: the fast path comes first, so failures can
 * never stop a device that presents a credential it has used before. This class is the policy; this replica's view
 * of the shared counts is {@link ReplicaCounts}, and {@link FailureWriter} writes this replica's failures, never on
 * the request's path.
 *
 * <p>The bound across replicas: a replica decides on the last total it read or wrote (at most
 * {@code refresh-interval} old, 1 s by default, re-read on the lane before the check otherwise) plus its own failures
 * since. So a key's limit L is exceeded by at most what the other replicas admit for it between two of their
 * refreshes, each at most L, and in practice at most their bcrypt capacity for one key in one refresh:
 * L + (replicas − 1) × min(L, bcrypt/s). A counter the writer had no room for stays local: this replica still
 * enforces it, the others do not see it. When the shared counts cannot be read, the replica decides on its own counts.
 */
@ApplicationScoped
public class AttemptBudget {

    private final AuthConfig.RateLimit config;
    private final LongSupplier wallMillis;
    private final long periodSeconds;
    private final ReplicaCounts counts;
    private final FailureWriter writer;
    private final boolean writerRunning;

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
        this.wallMillis = wallMillis;
        this.periodSeconds = Math.max(1, config.period().toSeconds());
        this.counts = new ReplicaCounts(reads, database, nanos, config.maxTrackedDevices(),
                config.period().multipliedBy(2), config.refreshInterval());
        this.writer = new FailureWriter(config, writes, nanos, () -> window(wallMillis.getAsLong()), registry);
        this.writerRunning = flushEvery && config.enabled();
        if (writerRunning) {
            writer.start();
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
        SharedCount[] pair = counts.counts(clientId, source, window);
        double previousWeight = 1 - (wall % (periodSeconds * 1000)) / (periodSeconds * 1000.0);
        if (counts.fresh(pair)) {
            return CompletableFuture.completedFuture(within(pair, previousWeight));
        }
        // Unreadable shared counts: decided on this replica's own (they bound what it does).
        return counts.refresh(clientId, source, window, deadline, pair)
                .thenApply(refreshed -> within(pair, previousWeight));
    }

    /**
     * Whether {@link #allows} would decide at once, from counts this replica learnt lately, rather than read the
     * shared ones first (always when the budget is off). The read is a database step like the credential's: a caller
     * that could not use a "yes" now (bcrypt saturated) skips it.
     */
    public boolean decidesWithoutReading(String clientId, String source) {
        return !config.enabled() || counts.freshWithoutCreating(clientId, source, window(wallMillis.getAsLong()));
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
        writer.charge(counts.count(new Key(clientId, source, window)), charge);
        writer.charge(counts.count(new Key(clientId, FailureStore.ANY_SOURCE, window)), charge);
    }

    /**
     * A sliding window, approximated from two fixed ones (as in Cloudflare's rate limiter): this window's failures plus
     * the previous window's, weighted by the part of it the sliding window still covers, rounded up. So the budget does
     * not come back all at once at a window's end, and L failures are never followed by L more at once.
     */
    private boolean within(SharedCount[] pair, double previousWeight) {
        long own = pair[0].total() + (long) Math.ceil(pair[2].total() * previousWeight);
        long client = pair[1].total() + (long) Math.ceil(pair[3].total() * previousWeight);
        return own < config.attempts() && client < config.clientAttempts();
    }

    private long window(long wall) {
        return wall / 1000 / periodSeconds;
    }

    /** Writes every failure counted since the last write, and forgets the windows that have ended. */
    public void flush() {
        writer.flush();
    }

    /** The budget's period, for answers that say when to come back. */
    public Duration period() {
        return config.period();
    }

    @PreDestroy
    void stop() {
        if (writerRunning) {
            writer.stop();
        }
    }
}
