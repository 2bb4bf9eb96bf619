package io.deviceidentity.auth.fastpath;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.function.LongSupplier;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.writebehind.WriteBehind;
import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.agroal.DataSource;

/**
 * Writes verifiers after the answer has gone out, through a {@link WriteBehind} (a bounded queue drained by one
 * thread, in batches of at most {@code write-batch}, written as soon as they are queued), on a datasource
 * of its own with one connection ({@code quarkus.datasource."verifiers".*}), so a write never delays an answer and
 * never takes a connection from the reads. When the queue is full, or a write has waited longer than
 * {@code write-max-wait}, the write is dropped and counted: the device then pays bcrypt once more on its next
 * connect, which is all a lost write costs. A batch that fails is tried once more ({@link SecondAttempt}): the
 * connection a restart of PostgreSQL or PgBouncer broke costs no batch.
 *
 * <p>A write only lands while the row still has the bcrypt string it was computed over and is active, so a
 * registration that replaced the password (or revoked the device) in the meantime is never followed by a verifier of
 * the old credential. (Such a verifier could not match anyway: it is bound to the old string.)
 */
@ApplicationScoped
public class VerifierWriter {

    private static final Logger LOG = Logger.getLogger(VerifierWriter.class);
    private static final String WRITE = "UPDATE device_credentials SET verifier_key_id = ?, verifier = ?"
            + " WHERE client_id = ? AND password_hash = ? AND status = 'active'";

    /** One verifier to store. {@code mac} is secret material: the record's toString leaves it out. */
    public record Write(String clientId, String passwordHash, String keyId, byte[] mac, long queuedAt) {

        public Write(String clientId, String passwordHash, String keyId, byte[] mac) {
            this(clientId, passwordHash, keyId, mac, System.nanoTime());
        }

        @Override
        public String toString() {
            return "Write[clientId=" + clientId + ", keyId=" + keyId + "]";
        }
    }

    private final AgroalDataSource dataSource;
    private final WriteBehind<Write> queue;
    private final long maxWaitNanos;
    private final LongSupplier clock;
    private final Counter written;
    private final Counter stale;
    private final Counter failed;
    private final Counter droppedFull;
    private final Counter droppedOld;

    @Inject
    public VerifierWriter(@DataSource("verifiers") AgroalDataSource dataSource, AuthConfig config,
            MeterRegistry registry) {
        this(dataSource, config.fastPath().writeQueue(), config.fastPath().writeBatch(),
                config.fastPath().writeMaxWait(), System::nanoTime, registry);
    }

    VerifierWriter(AgroalDataSource dataSource, int capacity, int batchSize, Duration maxWait, LongSupplier clock,
            MeterRegistry registry) {
        this.dataSource = dataSource;
        this.queue = WriteBehind.draining("verifier-writer", capacity, batchSize, this::writeFresh);
        this.maxWaitNanos = maxWait.toNanos();
        this.clock = clock;
        Gauge.builder(MetricNames.FASTPATH_WRITE_QUEUE_DEPTH, queue, WriteBehind::queued).register(registry);
        this.written = registry.counter(MetricNames.FASTPATH_WRITES, MetricNames.TAG_RESULT, "written");
        // The row changed (new password, revoked, deleted) between the check and the write.
        this.stale = registry.counter(MetricNames.FASTPATH_WRITES, MetricNames.TAG_RESULT, "stale");
        this.failed = registry.counter(MetricNames.FASTPATH_WRITES, MetricNames.TAG_RESULT, "failed");
        this.droppedFull = registry.counter(MetricNames.FASTPATH_WRITES_DROPPED, MetricNames.TAG_CAUSE, "queue_full");
        this.droppedOld = registry.counter(MetricNames.FASTPATH_WRITES_DROPPED, MetricNames.TAG_CAUSE, "too_old");
    }

    /** Queues a write; drops it (counted) when the queue is full. Never blocks. */
    public void offer(Write write) {
        if (!queue.offer(write)) {
            droppedFull.increment();
        }
    }

    /** A verifier queued before a shutdown is written before it: otherwise its device pays bcrypt once more. */
    @PreDestroy
    void stop() {
        queue.close();
    }

    /** One batch: false when it could not be written (after its second attempt). */
    private boolean writeFresh(List<Write> batch) {
        long now = clock.getAsLong();
        List<Write> fresh = new ArrayList<>(batch.size());
        for (Write write : batch) {
            if (now - write.queuedAt() > maxWaitNanos) {
                droppedOld.increment();
            } else {
                fresh.add(write);
            }
        }
        if (fresh.isEmpty()) {
            return true;
        }
        try {
            int[] counts = SecondAttempt.run(() -> store(fresh));
            for (int count : counts) {
                (count > 0 ? written : stale).increment();
            }
            return true;
        } catch (SQLException | RuntimeException e) {
            failed.increment(fresh.size());
            // The SQLSTATE only: no statement parameter, so no MAC or hash reaches the log.
            LOG.warnf("could not store %d fast-path verifiers, twice (%s): those devices pay bcrypt once more",
                    fresh.size(), e instanceof SQLException sql ? sql.getSQLState() : e.getClass().getSimpleName());
            return false;
        }
    }

    private int[] store(List<Write> writes) throws SQLException {
        try (Connection connection = dataSource.getConnection();
                PreparedStatement update = connection.prepareStatement(WRITE)) {
            connection.setAutoCommit(false);
            for (Write write : writes) {
                update.setString(1, write.keyId());
                update.setBytes(2, write.mac());
                update.setString(3, write.clientId());
                update.setString(4, write.passwordHash());
                update.addBatch();
            }
            int[] counts = update.executeBatch();
            connection.commit();
            return counts;
        }
    }
}
