package io.deviceidentity.credentials;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.function.LongSupplier;

import javax.sql.DataSource;

import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.overload.PooledConnections;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Credential reads from a standby that cannot miss an acknowledged revocation (docs/database-ha.md, "Reads from a
 * standby"). The rule, asked of the standby itself before every read:
 * <ul>
 *   <li>it is in recovery and its WAL receiver is running (it streams from a primary now), and</li>
 *   <li>it has replayed every byte of WAL it has received and flushed: {@code pg_last_wal_replay_lsn() >=
 *       pg_last_wal_receive_lsn()}.</li>
 * </ul>
 * Why that is enough: the primary acknowledges a commit only once its synchronous standby has flushed it
 * (synchronous replication, {@code synchronous_commit} on or above), so every revocation acknowledged before this
 * read is at or below the standby's receive position, and so at or below its replay position; the read that follows
 * is a new statement whose snapshot is taken after the check, and sees it. When the check fails (replay behind or
 * paused, a conflict, no primary to stream from) the read goes to the primary: an answer is never older than an
 * acknowledgement. The rule holds only for a standby that was synchronous at each acknowledgement: the standby
 * address must reach the synchronous standby only (Patroni's {@code /sync} check), and the primary must never
 * acknowledge without one ({@code synchronous_mode_strict}). A standby that cannot be reached, or whose pool is busy,
 * also sends the read to the primary; none of that is a database failure of the service.
 */
public class StandbyReads {

    /** One statement, evaluated on the standby; its answer is false (never null) when any part is unknown. */
    static final String CAUGHT_UP = "SELECT coalesce(pg_is_in_recovery()"
            + " AND EXISTS (SELECT FROM pg_stat_wal_receiver)"
            + " AND pg_last_wal_replay_lsn() >= pg_last_wal_receive_lsn(), false)";

    /** Reads nothing from a standby: every read goes to the primary. */
    public static final StandbyReads OFF = new StandbyReads();

    /**
     * After the standby failed (no connection, an error), reads go straight to the primary for this long: a standby
     * that is gone (no synchronous standby during a failover) would otherwise cost every read its pool's acquisition
     * timeout before the fallback, and the database threads held meanwhile refuse the requests behind them.
     */
    static final long SKIP_AFTER_FAILURE_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final DataSource standby;
    private final LongSupplier clock;
    private volatile long skipUntil;
    /** Whether the standby's last answer was a failure: then one read at a time asks it again (the probe). */
    private volatile boolean failed;
    private final AtomicBoolean probing = new AtomicBoolean();
    private final Counter fromStandby;
    private final Counter behind;
    private final Counter unreachable;

    private StandbyReads() {
        this.standby = null;
        this.clock = System::nanoTime;
        this.fromStandby = null;
        this.behind = null;
        this.unreachable = null;
    }

    public StandbyReads(DataSource standby, MeterRegistry registry) {
        this(standby, registry, System::nanoTime);
    }

    /** With its own clock (tests). */
    StandbyReads(DataSource standby, MeterRegistry registry, LongSupplier clock) {
        this.standby = standby;
        this.clock = clock;
        this.fromStandby = counter(registry, "standby");
        this.behind = counter(registry, "primary_standby_behind");
        this.unreachable = counter(registry, "primary_standby_unreachable");
    }

    private static Counter counter(MeterRegistry registry, String source) {
        return Counter.builder(MetricNames.STANDBY_READS).tag("source", source)
                .description("Credential reads by where they were answered: the standby, or the primary because the"
                        + " standby could not prove it had replayed every acknowledged write (behind) or did not answer")
                .register(registry);
    }

    public boolean enabled() {
        return standby != null;
    }

    /**
     * The row as the standby has it, when the standby proves it is caught up (an empty inner Optional: no such
     * device); empty when the read must go to the primary.
     */
    public Optional<Optional<DeviceCredential>> find(CredentialRows rows, String clientId, boolean withVerifier) {
        if (standby == null) {
            return Optional.empty();
        }
        // After a failure, one read at a time asks the standby again (once the skip has passed) and every other goes
        // to the primary meanwhile: a standby that is still gone then holds one database thread for its pool's
        // acquisition timeout, not every thread that reads in that moment (which would fill the database lane and
        // refuse the requests behind them, once a second for as long as the standby is away).
        boolean probe = failed;
        if (probe && (clock.getAsLong() - skipUntil < 0 || !probing.compareAndSet(false, true))) {
            unreachable.increment();
            return Optional.empty();
        }
        // Taken like the primary's connections: a database thread waiting on the standby waits on the database, and
        // the database lane counts it so (a refusal meanwhile names the database once such waits hold the lane).
        try (Connection connection = PooledConnections.take(standby)) {
            boolean caughtUp = caughtUp(connection);
            failed = false;
            if (!caughtUp) {
                behind.increment();
                return Optional.empty();
            }
            Optional<DeviceCredential> row = rows.find(connection, clientId, withVerifier);
            fromStandby.increment();
            return Optional.of(row);
        } catch (SQLException | RuntimeException e) {
            skipUntil = clock.getAsLong() + SKIP_AFTER_FAILURE_NANOS;
            failed = true;
            unreachable.increment();
            return Optional.empty();
        } finally {
            if (probe) {
                probing.set(false);
            }
        }
    }

    private static boolean caughtUp(Connection connection) throws SQLException {
        try (PreparedStatement check = connection.prepareStatement(CAUGHT_UP);
                ResultSet answer = check.executeQuery()) {
            return answer.next() && answer.getBoolean(1);
        }
    }
}
