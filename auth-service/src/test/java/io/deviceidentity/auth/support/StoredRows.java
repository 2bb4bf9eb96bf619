package io.deviceidentity.auth.support;

import static io.deviceidentity.auth.support.TestDevices.directConnection;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.concurrent.TimeUnit;

import io.deviceidentity.credentials.StoredVerifier;

/**
 * Reads and changes device rows behind the service's back, as the owner role: what registration-service does on
 * PUT and DELETE, and what a test needs to plant or inspect a verifier.
 */
public final class StoredRows {

    private StoredRows() {
    }

    private interface RowReader<T> {
        T read(ResultSet row) throws SQLException;
    }

    public static StoredVerifier verifier(String clientId) {
        return select("SELECT verifier_key_id, verifier FROM device_credentials WHERE client_id = ?", clientId,
                row -> row.getString(1) == null ? null : new StoredVerifier(row.getString(1), row.getBytes(2)));
    }

    /** Waits (bounded) until the writer has stored a verifier under {@code keyId}; fails otherwise. */
    public static StoredVerifier awaitVerifier(String clientId, String keyId) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(20);
        while (System.nanoTime() < until) {
            StoredVerifier stored = verifier(clientId);
            if (stored != null && stored.keyId().equals(keyId)) {
                return stored;
            }
            Thread.sleep(10);
        }
        throw new AssertionError("no verifier under " + keyId + " was written for " + clientId);
    }

    public static String passwordScheme(String clientId) {
        return select("SELECT password_scheme FROM device_credentials WHERE client_id = ?", clientId,
                row -> row.getString(1));
    }

    /** Waits (bounded) until the row's scheme is {@code scheme} (an upgrade written after the answer); fails otherwise. */
    public static void awaitScheme(String clientId, String scheme) throws InterruptedException {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (System.nanoTime() < until) {
            if (scheme.equals(passwordScheme(clientId))) {
                return;
            }
            Thread.sleep(10);
        }
        throw new AssertionError(clientId + " never reached scheme " + scheme);
    }

    public static String passwordHash(String clientId) {
        return select("SELECT password_hash FROM device_credentials WHERE client_id = ?", clientId,
                row -> row.getString(1));
    }

    private static <T> T select(String sql, String clientId, RowReader<T> reader) {
        try (Connection connection = directConnection();
                PreparedStatement query = connection.prepareStatement(sql)) {
            query.setString(1, clientId);
            try (ResultSet row = query.executeQuery()) {
                return row.next() ? reader.read(row) : null;
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    public static void update(String sql, Object... parameters) {
        try (Connection connection = directConnection();
                PreparedStatement update = connection.prepareStatement(sql)) {
            for (int i = 0; i < parameters.length; i++) {
                update.setObject(i + 1, parameters[i]);
            }
            if (update.executeUpdate() != 1) {
                throw new AssertionError("expected one row to change: " + sql);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
