package io.deviceidentity.registration.kicks;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Timestamp;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;

import javax.sql.DataSource;

import io.deviceidentity.overload.PooledConnections;

/**
 * The {@code device_kicks} table (V4), all of its SQL: rows recorded by DeviceStore and ImportStore in the statement
 * that revokes or re-keys a device ({@link #recordKicks}), read and removed here by the delivery worker.
 *
 * <p>Every method is ONE statement on one pooled connection, run as its own transaction (autocommit). That is what
 * PgBouncer's transaction pooling allows: a row lock taken by {@code FOR UPDATE SKIP LOCKED} lives only as long as
 * its transaction, so the claim cannot be "select now, update later" across statements. Instead the claim is a
 * single UPDATE whose sub-select skips rows another replica is claiming at the same moment and whose SET moves
 * {@code next_attempt_at} to the end of a lease: once it commits, the other replicas see the row as not due until the
 * lease ends. No connection is held while EMQX is called. A replica that dies while delivering leaves its rows to be
 * claimed again when the lease runs out.
 */
public final class KickOutbox {

    /** A claimed row: what to kick, and how many attempts this one makes (1 for the first). */
    public record Claimed(long id, String clientId, String reason, int attempts, Instant createdAt) {
    }

    /** How many kicks wait, and since when the oldest does (empty when none). */
    public record Backlog(long pending, Optional<Instant> oldest) {
    }

    /** Why a session is ended, as the {@code reason} column holds it. */
    public enum Reason {
        REVOKED, REKEYED;

        String column() {
            return name().toLowerCase(java.util.Locale.ROOT);
        }
    }

    private static final String CLAIM = "UPDATE device_kicks SET attempts = attempts + 1, next_attempt_at = ?"
            + " WHERE id IN (SELECT id FROM device_kicks WHERE next_attempt_at IS NULL OR next_attempt_at <= ?"
            + " ORDER BY id LIMIT ? FOR UPDATE SKIP LOCKED)"
            + " RETURNING id, client_id, reason, attempts, created_at";
    private static final String DELIVERED = "DELETE FROM device_kicks WHERE id = ?";
    private static final String RETRY = "UPDATE device_kicks SET next_attempt_at = ?, last_error = ? WHERE id = ?";
    private static final String BACKLOG = "SELECT count(*), min(created_at) FROM device_kicks";

    private final DataSource dataSource;

    /**
     * The part of a data-modifying {@code WITH} that records a kick of every device the part named {@code rows}
     * returns a {@code client_id} for (only of those matching {@code onlyWhere}, when not empty): in the statement
     * that changed the devices, so in its transaction, and run whether or not the outer query reads it (PostgreSQL,
     * "Data-Modifying Statements in WITH").
     */
    public static String recordKicks(String rows, Reason reason, String onlyWhere) {
        return " kick AS (INSERT INTO device_kicks (client_id, reason) SELECT client_id, '" + reason.column()
                + "' FROM " + rows + (onlyWhere.isEmpty() ? "" : " WHERE " + onlyWhere) + ")";
    }

    public KickOutbox(DataSource dataSource) {
        this.dataSource = dataSource;
    }

    /** Claims up to {@code limit} due rows until {@code leaseEnd}; each claim counts as an attempt. */
    public List<Claimed> claim(Instant now, Instant leaseEnd, int limit) throws SQLException {
        try (Connection connection = PooledConnections.take(dataSource);
                PreparedStatement statement = connection.prepareStatement(CLAIM)) {
            statement.setTimestamp(1, Timestamp.from(leaseEnd));
            statement.setTimestamp(2, Timestamp.from(now));
            statement.setInt(3, limit);
            List<Claimed> claimed = new ArrayList<>();
            try (ResultSet rows = statement.executeQuery()) {
                while (rows.next()) {
                    claimed.add(new Claimed(rows.getLong(1), rows.getString(2), rows.getString(3), rows.getInt(4),
                            rows.getTimestamp(5).toInstant()));
                }
            }
            claimed.sort((a, b) -> Long.compare(a.id(), b.id()));
            return claimed;
        }
    }

    /** EMQX answered: the session is gone (or there was none). */
    public void delivered(long id) throws SQLException {
        try (Connection connection = PooledConnections.take(dataSource);
                PreparedStatement statement = connection.prepareStatement(DELIVERED)) {
            statement.setLong(1, id);
            statement.executeUpdate();
        }
    }

    /** The attempt failed: not due again before {@code next}. */
    public void retryAt(long id, Instant next, String error) throws SQLException {
        try (Connection connection = PooledConnections.take(dataSource);
                PreparedStatement statement = connection.prepareStatement(RETRY)) {
            statement.setTimestamp(1, Timestamp.from(next));
            statement.setString(2, error.length() > 32 ? error.substring(0, 32) : error);
            statement.setLong(3, id);
            statement.executeUpdate();
        }
    }

    public Backlog backlog() throws SQLException {
        try (Connection connection = PooledConnections.take(dataSource);
                PreparedStatement statement = connection.prepareStatement(BACKLOG);
                ResultSet row = statement.executeQuery()) {
            row.next();
            Timestamp oldest = row.getTimestamp(2);
            return new Backlog(row.getLong(1), Optional.ofNullable(oldest).map(Timestamp::toInstant));
        }
    }
}
