package io.deviceidentity.auth.support;

import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;

import org.eclipse.microprofile.config.ConfigProvider;

import io.deviceidentity.testsupport.TestDatabase;

/**
 * auth-service's own database role, with the credentials the running test service is configured with: for tests that
 * act as the service does ({@link TestDevices#directConnection()} is the schema owner). Call from a
 * {@code QuarkusTest}, whose configuration it reads.
 */
public final class ServiceRole {

    private ServiceRole() {
    }

    public static String user() {
        return config("quarkus.datasource.username");
    }

    public static String password() {
        return config("quarkus.datasource.password");
    }

    /** Through PgBouncer, with the service's own JDBC URL. */
    public static Connection connection() throws SQLException {
        return DriverManager.getConnection(config("quarkus.datasource.jdbc.url"), user(), password());
    }

    /** To PostgreSQL itself, not PgBouncer: where a backend is the one connection's own. */
    public static Connection directConnection() throws SQLException {
        return DriverManager.getConnection(TestDatabase.postgresUrl(), user(), password());
    }

    /**
     * Calls one of the password compare-and-set functions ({@code SELECT f(client_id, verified_hash, new_hash)}) on
     * {@code connection}, as the service's writer does; true when it replaced the hash.
     */
    public static boolean replaceHash(Connection connection, String call, String clientId, String verified,
            String newHash) throws SQLException {
        try (PreparedStatement statement = connection.prepareStatement(call)) {
            statement.setString(1, clientId);
            statement.setString(2, verified);
            statement.setString(3, newHash);
            try (ResultSet result = statement.executeQuery()) {
                result.next();
                return result.getBoolean(1);
            }
        }
    }

    private static String config(String name) {
        return ConfigProvider.getConfig().getValue(name, String.class);
    }
}
