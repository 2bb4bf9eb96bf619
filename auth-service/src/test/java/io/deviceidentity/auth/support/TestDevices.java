package io.deviceidentity.auth.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;

import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.legacy.PasswordScheme;
import io.deviceidentity.testsupport.TestDatabase;

/**
 * Writes device rows straight into the test PostgreSQL (not through the service under test), the way
 * registration-service would leave them. Each test names its devices with a unique prefix, so tests never see each
 * other's rows or rate-limit buckets.
 */
public final class TestDevices {

    public static final String DB_USER = "identity";
    public static final String DB_PASSWORD = "identity-local-dev";
    private static final Map<String, String> HASHES = new ConcurrentHashMap<>();

    private TestDevices() {
    }

    public static String uniqueId(String prefix) {
        return prefix + "-" + UUID.randomUUID().toString().substring(0, 8);
    }

    public static Connection directConnection() throws SQLException {
        return DriverManager.getConnection(TestDatabase.postgresUrl() + "&ApplicationName=auth-tests", DB_USER,
                DB_PASSWORD);
    }

    public static Builder device(String clientId) {
        return new Builder(clientId);
    }

    /** PostgreSQL backends serving the service (through PgBouncer), not counting migrations and the tests' own. */
    public static int serviceBackends(Connection connection) throws SQLException {
        try (PreparedStatement query = connection.prepareStatement("SELECT count(*) FROM pg_stat_activity"
                + " WHERE datname = 'identity' AND backend_type = 'client backend'"
                + " AND application_name NOT IN ('auth-tests', 'auth-service-migration')");
                ResultSet row = query.executeQuery()) {
            row.next();
            return row.getInt(1);
        }
    }

    public static final class Builder {
        private final String clientId;
        private String password = "pw-" + UUID.randomUUID();
        private int cost = 4;
        private String username;
        private boolean superuser;
        private String status = "active";
        private String aclJson;
        private String hash;
        private String scheme = "bcrypt";

        private Builder(String clientId) {
            this.clientId = clientId;
        }

        public Builder password(String value) {
            this.password = value;
            return this;
        }

        public Builder cost(int value) {
            this.cost = value;
            return this;
        }

        public Builder username(String value) {
            this.username = value;
            return this;
        }

        /**
         * Stores this ready-made hash as it is, as registration-service stores a {@code password_hash} (PUT or
         * import); {@code password} is what it was made from.
         */
        public Builder passwordHash(String bcryptHash, String password) {
            this.hash = bcryptHash;
            this.password = password;
            return this;
        }

        /**
         * Stores a hash of another broker's scheme as registration-service's import stores it:
         * {@code stored} is the scheme's stored form ({@code LegacyHash.stored()}), made from {@code password}.
         */
        public Builder legacyHash(PasswordScheme passwordScheme, String stored, String password) {
            this.scheme = passwordScheme.column();
            this.hash = stored;
            this.password = password;
            return this;
        }

        public Builder superuser() {
            this.superuser = true;
            return this;
        }

        public Builder revoked() {
            this.status = "revoked";
            return this;
        }

        public Builder acl(String json) {
            this.aclJson = json;
            return this;
        }

        /** Stores the device and returns its password. */
        public String store() {
            // Hashing at cost 10+ is slow; devices that share a password and cost share one hash.
            String hash = this.hash != null ? this.hash
                    : HASHES.computeIfAbsent(cost + ":" + password, key -> Bcrypt.hash(password, cost));
            try (Connection connection = directConnection();
                    PreparedStatement insert = connection.prepareStatement("INSERT INTO device_credentials"
                            + " (client_id, username, password_hash, status, superuser, acl, password_scheme)"
                            + " VALUES (?, ?, ?, ?, ?, ?::jsonb, ?)")) {
                insert.setString(1, clientId);
                insert.setString(2, username);
                insert.setString(3, hash);
                insert.setString(4, status);
                insert.setBoolean(5, superuser);
                insert.setString(6, aclJson);
                insert.setString(7, scheme);
                insert.executeUpdate();
            } catch (SQLException e) {
                throw new IllegalStateException("could not store test device " + clientId, e);
            }
            return password;
        }
    }
}
