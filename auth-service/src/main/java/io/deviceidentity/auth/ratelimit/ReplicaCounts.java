package io.deviceidentity.auth.ratelimit;

import java.sql.Connection;
import java.time.Duration;
import java.util.concurrent.CompletionStage;
import java.util.function.LongSupplier;

import javax.sql.DataSource;

import com.github.benmanes.caffeine.cache.Cache;

import io.deviceidentity.auth.ratelimit.FailureStore.Key;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.overload.PooledConnections;
import io.deviceidentity.overload.Share;

/**
 * This replica's view of the failure counts every replica shares: a bounded map of {@link SharedCount}s, and when
 * the ones a decision needs are older than the refresh interval ({@code refresh-interval}, 1 s), one read of the shared totals on the database
 * lane (in the known share: the device is known to exist). What the refresh interval bounds is said in
 * {@link AttemptBudget}.
 */
final class ReplicaCounts {

    private final DataSource reads;
    private final Lane database;
    private final LongSupplier nanos;
    private final Cache<Key, SharedCount> counts;
    private final long refreshNanos;

    ReplicaCounts(DataSource reads, Lane database, LongSupplier nanos, long maxTracked, Duration idle,
            Duration refresh) {
        this.refreshNanos = refresh.toNanos();
        this.reads = reads;
        this.database = database;
        this.nanos = nanos;
        this.counts = BoundedCaches.bounded(maxTracked, idle);
    }

    /** The pair's and the client id's counts, this window's and the previous one's, created when new. */
    SharedCount[] counts(String clientId, String source, long window) {
        Key[] keys = keys(clientId, source, window);
        SharedCount[] found = new SharedCount[keys.length];
        for (int i = 0; i < keys.length; i++) {
            found[i] = count(keys[i]);
        }
        return found;
    }

    SharedCount count(Key key) {
        return counts.get(key, SharedCount::new);
    }

    /**
     * Whether every count of the pair is known and fresh. Looked up, not created: a device seen for the first time
     * has no counts yet, and a refused check adds none.
     */
    boolean freshWithoutCreating(String clientId, String source, long window) {
        long now = nanos.getAsLong();
        for (Key key : keys(clientId, source, window)) {
            SharedCount count = counts.getIfPresent(key);
            if (count == null || !fresh(count, now)) {
                return false;
            }
        }
        return true;
    }

    boolean fresh(SharedCount[] found) {
        long now = nanos.getAsLong();
        for (SharedCount count : found) {
            if (!fresh(count, now)) {
                return false;
            }
        }
        return true;
    }

    /**
     * Reads the shared totals of {@code found} (as {@link #counts} returned them) on the lane and learns them;
     * completes normally when they could not be read: the caller then decides on this replica's own counts.
     */
    CompletionStage<Void> refresh(String clientId, String source, long window, Deadline deadline,
            SharedCount[] found) {
        return database.run(deadline, Share.KNOWN, () -> {
            try (Connection connection = PooledConnections.take(reads)) {
                return FailureStore.read(connection, clientId, source, window);
            }
        }).handle((totals, failure) -> {
            if (totals != null) {
                long at = nanos.getAsLong();
                for (int i = 0; i < found.length; i++) {
                    found[i].learnt(totals[i], at);
                }
            }
            return null;
        });
    }

    /** In {@link AttemptBudget#within}'s order: pair, client id, pair before, client id before. */
    private static Key[] keys(String clientId, String source, long window) {
        return new Key[] {new Key(clientId, source, window), new Key(clientId, FailureStore.ANY_SOURCE, window),
                new Key(clientId, source, window - 1), new Key(clientId, FailureStore.ANY_SOURCE, window - 1)};
    }

    private boolean fresh(SharedCount count, long now) {
        return count.syncedAt != Long.MIN_VALUE && now - count.syncedAt <= refreshNanos;
    }
}
