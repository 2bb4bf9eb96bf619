package io.deviceidentity.auth.authn;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import javax.sql.DataSource;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.overload.DatabaseWork;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.overload.PooledConnections;
import io.deviceidentity.overload.Share;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Reads the 64 registration epochs (table {@code registration_epochs}, bumped by a trigger in the same transaction
 * as every registration, migration V3), single-flighted: {@link #readStartedAfter} gives a read that started after
 * the given moment, joining the one in flight when it started late enough, otherwise the next one, which starts when
 * the current one ends. So at most one read is in flight at any time, and a flood of unknown ids costs one small
 * query per batch of requests, not one per request. Because only one is ever in flight, it runs in the lane's known
 * share: it can take at most one place there. {@link RecentlyActiveDevices} uses the last finished read, with its
 * start ({@link #latestRead}), to keep devices that retry through a storm remembered without reading their rows.
 */
@ApplicationScoped
public class RegistrationEpochs {

    static final int BUCKETS = 64;
    private static final String READ = "SELECT bucket, epoch FROM registration_epochs";
    /** A read serves requests with different deadlines; it gets one of its own, well inside theirs. */
    private static final Duration READ_DEADLINE = Duration.ofSeconds(1);

    private final Supplier<CompletableFuture<long[]>> reader;
    private final LongSupplier clock;
    private final Counter reads;
    private CompletableFuture<long[]> inFlight;
    private long inFlightStartedAt;
    private CompletableFuture<long[]> next;
    private volatile Read latest;

    /** A finished read: the epochs and when it started (on this class's clock), since no later bump is in them. */
    public record Read(long[] epochs, long startedAt) {
    }

    @Inject
    public RegistrationEpochs(DataSource pool, @DatabaseWork Lane database, MeterRegistry registry) {
        this(() -> database.run(Deadline.after(System.nanoTime(), READ_DEADLINE), Share.KNOWN,
                () -> read(pool)), System::nanoTime, registry);
    }

    /** With its own reader and clock (tests). */
    RegistrationEpochs(Supplier<CompletableFuture<long[]>> reader, LongSupplier clock, MeterRegistry registry) {
        this.reader = reader;
        this.clock = clock;
        this.reads = registry.counter(MetricNames.EPOCH_READS);
    }

    /** A read of the epochs that started at or after {@code nanos} (on this class's clock). */
    public CompletionStage<long[]> readStartedAfter(long nanos) {
        synchronized (this) {
            if (inFlight != null && inFlightStartedAt >= nanos) {
                return inFlight;
            }
            if (inFlight == null) {
                return start(new CompletableFuture<>());
            }
            if (next == null) {
                next = new CompletableFuture<>();
            }
            return next;
        }
    }

    /** The epochs of the last read that has finished, or null before the first. */
    public long[] latest() {
        Read read = latest;
        return read == null ? null : read.epochs();
    }

    /** The last read that has finished, with its start, or null before the first. */
    public Read latestRead() {
        return latest;
    }

    /**
     * Starts a read, not waited for, unless one is in flight or the last finished one started at or after
     * {@code nanos}: keeps {@link #latestRead} at most that old for whoever relies on it, at one shared read.
     */
    public void refreshIfStartedBefore(long nanos) {
        Read read = latest;
        if (read != null && read.startedAt() >= nanos) {
            return;
        }
        synchronized (this) {
            if (inFlight == null && (latest == null || latest.startedAt() < nanos)) {
                start(new CompletableFuture<>());
            }
        }
    }

    /** Starts a read if none is in flight, so that {@link #latest} gets a value (not waited for). */
    public void warmUp() {
        refreshIfStartedBefore(Long.MIN_VALUE);
    }

    /** Called holding the lock. */
    private CompletableFuture<long[]> start(CompletableFuture<long[]> result) {
        inFlight = result;
        inFlightStartedAt = clock.getAsLong();
        reads.increment();
        CompletableFuture<long[]> read;
        try {
            read = reader.get();
        } catch (RuntimeException e) {
            read = CompletableFuture.failedFuture(e);
        }
        read.whenComplete((epochs, failure) -> finished(result, epochs, failure));
        return result;
    }

    private void finished(CompletableFuture<long[]> result, long[] epochs, Throwable failure) {
        synchronized (this) {
            if (epochs != null) {
                latest = new Read(epochs, inFlightStartedAt);
            }
            inFlight = null;
            if (next != null) {
                CompletableFuture<long[]> waiting = next;
                next = null;
                start(waiting);
            }
        }
        if (failure != null) {
            result.completeExceptionally(failure);
        } else {
            result.complete(epochs);
        }
    }

    private static long[] read(DataSource pool) throws SQLException {
        long[] epochs = new long[BUCKETS];
        try (Connection connection = PooledConnections.take(pool);
                PreparedStatement query = connection.prepareStatement(READ);
                ResultSet rows = query.executeQuery()) {
            while (rows.next()) {
                epochs[rows.getInt(1)] = rows.getLong(2);
            }
        }
        return epochs;
    }

    /**
     * The bucket of a client id: the first byte of SHA-256 of its UTF-8 bytes, modulo 64 (the V3 trigger computes
     * the same: {@code get_byte(sha256(convert_to(client_id, 'UTF8')), 0) % 64}).
     */
    public static int bucketOf(String clientId) {
        try {
            byte[] digest = MessageDigest.getInstance("SHA-256").digest(clientId.getBytes(StandardCharsets.UTF_8));
            return (digest[0] & 0xff) % BUCKETS;
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("SHA-256 is part of every JVM", e);
        }
    }
}
