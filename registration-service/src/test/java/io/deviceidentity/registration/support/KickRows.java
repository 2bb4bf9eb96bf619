package io.deviceidentity.registration.support;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

/** The kick outbox (device_kicks) as PostgreSQL holds it, over the test's own direct connection. */
public final class KickRows {

    private KickRows() {
    }

    /** Records a kick as a committed revocation does (the row the revoking statement writes). */
    public static void recordRevocation(String clientId) {
        update("INSERT INTO device_kicks (client_id, reason) VALUES (?, 'revoked')", clientId);
    }

    /** Kicks of this client id still waiting for delivery. */
    public static int pending(String clientId) {
        try (Connection connection = Database.connect();
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT count(*) FROM device_kicks WHERE client_id = ?")) {
            statement.setString(1, clientId);
            try (ResultSet row = statement.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The reason of this client id's waiting kick, or null. */
    public static String reason(String clientId) {
        try (Connection connection = Database.connect();
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT reason FROM device_kicks WHERE client_id = ? ORDER BY id LIMIT 1")) {
            statement.setString(1, clientId);
            try (ResultSet row = statement.executeQuery()) {
                return row.next() ? row.getString(1) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Empties the outbox, so that a test's rounds see only its own kicks. */
    public static void clear() {
        update("DELETE FROM device_kicks", null);
    }

    private static void update(String sql, String clientId) {
        try (Connection connection = Database.connect();
                PreparedStatement statement = connection.prepareStatement(sql)) {
            if (clientId != null) {
                statement.setString(1, clientId);
            }
            statement.executeUpdate();
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
