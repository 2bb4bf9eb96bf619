package io.deviceidentity.registration.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Optional;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.credentials.CredentialRows;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.testsupport.TestDatabase;

/**
 * What is really in PostgreSQL, read over the test's own direct connection (not the service's pool and not
 * PgBouncer), with the same row reader auth-service uses. So assertions about rows are independent of the code
 * under test, and of its pool.
 */
public final class Database {

    private static final CredentialRows ROWS = new CredentialRows(new ObjectMapper());

    private Database() {
    }

    public static Connection connect() throws SQLException {
        return DriverManager.getConnection(TestDatabase.postgresUrl(), "identity", "identity-local-dev");
    }

    public static Optional<DeviceCredential> row(String clientId) {
        try (Connection connection = connect()) {
            return ROWS.find(connection, clientId);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** The row with auth-service's fast-path verifier columns too. */
    public static Optional<DeviceCredential> rowWithVerifier(String clientId) {
        try (Connection connection = connect()) {
            return ROWS.find(connection, clientId, true);
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Stores a verifier the way auth-service's writer does (any 32 bytes will do: only its presence matters here). */
    public static void plantVerifier(String clientId) {
        try (Connection connection = connect();
                PreparedStatement statement = connection.prepareStatement("UPDATE device_credentials"
                        + " SET verifier_key_id = 'k1', verifier = decode(repeat('ab', 32), 'hex') WHERE client_id = ?")) {
            statement.setString(1, clientId);
            if (statement.executeUpdate() != 1) {
                throw new IllegalStateException("no row for " + clientId);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }

    /** Rows whose client id starts with {@code prefix}: every test names its devices with a unique prefix. */
    public static int countWithPrefix(String prefix) {
        try (Connection connection = connect();
                PreparedStatement statement = connection.prepareStatement(
                        "SELECT count(*) FROM device_credentials WHERE starts_with(client_id, ?)")) {
            statement.setString(1, prefix);
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getInt(1);
            }
        } catch (SQLException e) {
            throw new IllegalStateException(e);
        }
    }
}
