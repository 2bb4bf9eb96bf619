package io.deviceidentity.testsupport;

import java.nio.file.Path;

/**
 * The test stack's database path as every test reaches it: TLS only, the server's certificate and name verified
 * ({@code sslmode=verify-full}) against the CA that scripts/stack.sh made for the test stack (STACK_DIR/tls/ca.crt;
 * the root pom passes its path as {@code test.db.ca}, {@code make test} the one {@code stack.sh db-ca test} prints).
 */
public final class TestDatabase {

    private TestDatabase() {
    }

    /** The PEM CA the test PostgreSQL's and PgBouncer's certificates chain to. */
    public static Path ca() {
        return Path.of(System.getProperty("test.db.ca", "../.local/test/tls/ca.crt")).toAbsolutePath();
    }

    public static int postgresPort() {
        return Integer.getInteger("test.pg.port", 55433);
    }

    public static int pgbouncerPort() {
        return Integer.getInteger("test.pgbouncer.port", 56433);
    }

    /** PostgreSQL itself (not PgBouncer), database {@code identity}: what the tests read and write rows through. */
    public static String postgresUrl() {
        return url(postgresPort(), "identity");
    }

    /** PgBouncer, database {@code database} ({@code identity}, or {@code pgbouncer} for its admin console). */
    public static String pgbouncerUrl(String database) {
        return url(pgbouncerPort(), database);
    }

    /** A JDBC URL to 127.0.0.1:{@code port} that verifies the server against the test stack's CA. */
    public static String url(int port, String database) {
        return "jdbc:postgresql://127.0.0.1:" + port + "/" + database + "?" + verifiedTls(ca());
    }

    /** pgjdbc's parameters for TLS with the server's certificate and host name checked against {@code ca}. */
    public static String verifiedTls(Path ca) {
        return "sslmode=verify-full&sslrootcert=" + ca;
    }
}
