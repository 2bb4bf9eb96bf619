package io.deviceidentity.testsupport.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.security.cert.CertificateExpiredException;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.sql.Statement;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLHandshakeException;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deviceidentity.testsupport.TestDatabase;

/**
 * The database path is TLS on both hops and refuses what it must, against the real processes: the test stack's
 * PgBouncer and PostgreSQL (scripts/stack.sh db-up test), and PgBouncers of the test's own for the server
 * certificates the stack must never present (expired, from another CA). The client is pgJDBC, the services' driver,
 * with the services' settings (sslmode=verify-full, sslrootcert).
 */
class DatabasePathTlsTest {

    private static final String USER = "identity";
    private static final String PASSWORD = "identity-local-dev";

    @Test
    void aPlaintextClientIsRefusedByPgBouncerBeforeItCanSendAPassword() {
        SQLException refused = assertThrows(SQLException.class,
                () -> connect("jdbc:postgresql://127.0.0.1:" + TestDatabase.pgbouncerPort() + "/identity?sslmode=disable"));
        assertTrue(refused.getMessage().contains("SSL required"), refused::getMessage);
    }

    @Test
    void aPlaintextClientIsRefusedByPostgresqlToo() {
        SQLException refused = assertThrows(SQLException.class,
                () -> connect("jdbc:postgresql://127.0.0.1:" + TestDatabase.postgresPort() + "/identity?sslmode=disable"));
        assertTrue(refused.getMessage().contains("no encryption"), refused::getMessage);
    }

    @Test
    void aClientVerifyingAgainstAnotherCaRefusesPgBouncer(@TempDir Path dir) throws Exception {
        Path otherCa = LocalCa.ca(dir);
        SQLException refused = assertThrows(SQLException.class, () -> connect(
                "jdbc:postgresql://127.0.0.1:" + TestDatabase.pgbouncerPort() + "/identity?" + TestDatabase.verifiedTls(otherCa)));
        assertTrue(causes(refused).stream().anyMatch(SSLHandshakeException.class::isInstance), () -> chain(refused));
    }

    @Test
    void aClientRefusesAPgBouncerPresentingAnExpiredCertificate(@TempDir Path dir) throws Exception {
        Path ca = LocalCa.ca(dir);
        LocalCa.expired(dir, "pgbouncer");
        try (ThrowawayPgBouncer bouncer = ThrowawayPgBouncer.start(dir, "pgbouncer", TestDatabase.ca(),
                TestDatabase.postgresPort())) {
            SQLException refused = assertThrows(SQLException.class, () -> connect(
                    "jdbc:postgresql://127.0.0.1:" + bouncer.port() + "/identity?" + TestDatabase.verifiedTls(ca)));
            assertTrue(causes(refused).stream().anyMatch(CertificateExpiredException.class::isInstance),
                    () -> chain(refused));
            // The same PgBouncer with a valid certificate of the same CA is reached: only the expiry was refused.
        }
        LocalCa.issue(dir, "pgbouncer");
        try (ThrowawayPgBouncer bouncer = ThrowawayPgBouncer.start(dir, "pgbouncer", TestDatabase.ca(),
                TestDatabase.postgresPort());
                Connection connection = connect("jdbc:postgresql://127.0.0.1:" + bouncer.port() + "/identity?"
                        + TestDatabase.verifiedTls(ca))) {
            assertEquals(1, single(connection, "SELECT 1"));
        }
    }

    @Test
    void pgBouncerRefusesAPostgresqlWhoseCertificateDoesNotChainToItsCa(@TempDir Path dir) throws Exception {
        Path ca = LocalCa.ca(dir);
        LocalCa.issue(dir, "pgbouncer");
        // PgBouncer is told to trust only this throwaway CA, which did not sign the test PostgreSQL's certificate.
        try (ThrowawayPgBouncer bouncer = ThrowawayPgBouncer.start(dir, "pgbouncer", ca, TestDatabase.postgresPort())) {
            SQLException refused = assertThrows(SQLException.class, () -> {
                try (Connection connection = connect("jdbc:postgresql://127.0.0.1:" + bouncer.port() + "/identity?"
                        + TestDatabase.verifiedTls(ca))) {
                    single(connection, "SELECT 1");
                }
            });
            assertFalse(refused.getMessage().isEmpty());
            assertTrue(bouncer.log().contains("certificate verify failed"), bouncer::log);
        }
    }

    @Test
    void verifyFullWithTheRightCaReachesPostgresqlThroughPgBouncerEncryptedOnBothHops() throws Exception {
        String application = "tls-proof-" + UUID.randomUUID().toString().substring(0, 8);
        try (Connection connection = connect(TestDatabase.pgbouncerUrl("identity") + "&ApplicationName=" + application)) {
            // PgBouncer -> PostgreSQL: the server connection this transaction runs on is TLS.
            try (Statement statement = connection.createStatement();
                    ResultSet row = statement.executeQuery(
                            "SELECT ssl, version FROM pg_stat_ssl WHERE pid = pg_backend_pid()")) {
                assertTrue(row.next());
                assertTrue(row.getBoolean("ssl"), "PgBouncer's server connection to PostgreSQL is not TLS");
                assertTrue(row.getString("version").startsWith("TLSv1."), row.getString("version"));
            }
            // Service -> PgBouncer, and every server connection: PgBouncer's own view (SHOW CLIENTS / SHOW SERVERS).
            List<String> clientTls = column(admin("SHOW CLIENTS"), "tls", "application_name", application);
            assertEquals(1, clientTls.size(), clientTls::toString);
            assertTrue(clientTls.get(0).startsWith("TLSv1."), clientTls::toString);
            List<String> serverTls = column(admin("SHOW SERVERS"), "tls", null, null);
            assertFalse(serverTls.isEmpty());
            assertTrue(serverTls.stream().allMatch(tls -> tls.startsWith("TLSv1.")), serverTls::toString);
        }
    }

    private static Connection connect(String url) throws SQLException {
        return DriverManager.getConnection(url, USER, PASSWORD);
    }

    /**
     * One command on PgBouncer's admin console, through psql over the same verified TLS (pgJDBC cannot log in there:
     * the console refuses the SET statements pgJDBC runs after login). Rows of tab-separated cells, header first.
     */
    private static List<String[]> admin(String command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("psql", "-X", "-A", "-F", "\t", "-P", "footer=off",
                "-h", "127.0.0.1", "-p", String.valueOf(TestDatabase.pgbouncerPort()), "-U", USER, "-d", "pgbouncer",
                "-c", command).redirectErrorStream(true);
        builder.environment().putAll(Map.of("PGPASSWORD", PASSWORD, "PGSSLMODE", "verify-full",
                "PGSSLROOTCERT", TestDatabase.ca().toString()));
        Process psql = builder.start();
        String output = new String(psql.getInputStream().readAllBytes());
        assertTrue(psql.waitFor(60, TimeUnit.SECONDS) && psql.exitValue() == 0, output);
        return output.lines().map(line -> line.split("\t", -1)).toList();
    }

    private static int single(Connection connection, String sql) throws SQLException {
        try (Statement statement = connection.createStatement(); ResultSet row = statement.executeQuery(sql)) {
            row.next();
            return row.getInt(1);
        }
    }

    /** {@code column} of every row (where {@code whereColumn} equals {@code whereValue}, if given). */
    private static List<String> column(List<String[]> table, String column, String whereColumn, String whereValue) {
        List<String> header = List.of(table.get(0));
        int value = header.indexOf(column);
        int where = whereColumn == null ? -1 : header.indexOf(whereColumn);
        assertTrue(value >= 0 && (whereColumn == null || where >= 0), header::toString);
        return table.subList(1, table.size()).stream()
                .filter(row -> where < 0 || whereValue.equals(row[where])).map(row -> row[value]).toList();
    }

    private static List<Throwable> causes(Throwable thrown) {
        List<Throwable> causes = new ArrayList<>();
        for (Throwable t = thrown; t != null && !causes.contains(t); t = t.getCause()) {
            causes.add(t);
        }
        return causes;
    }

    private static String chain(Throwable thrown) {
        return causes(thrown).stream().map(Throwable::toString).reduce((a, b) -> a + "\n caused by " + b).orElse("");
    }
}
