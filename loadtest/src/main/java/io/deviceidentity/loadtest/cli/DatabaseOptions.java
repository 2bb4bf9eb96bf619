package io.deviceidentity.loadtest.cli;

import io.deviceidentity.loadtest.db.DatabaseAccess;
import picocli.CommandLine.Option;

/** Where PostgreSQL and PgBouncer's admin console are, for watching connections and for seeding. */
public final class DatabaseOptions {

    @Option(names = "--pg-url", paramLabel = "JDBC_URL",
            description = "PostgreSQL itself (not PgBouncer), e.g. jdbc:postgresql://127.0.0.1:55432/identity"
                    + "?sslmode=verify-full&sslrootcert=.local/dev/tls/ca.crt (the local stacks are TLS-only). "
                    + "Watched through pg_stat_activity; needed by seed.")
    String postgresUrl;

    @Option(names = "--pgbouncer-admin-url", paramLabel = "JDBC_URL",
            description = "PgBouncer's admin console, e.g. jdbc:postgresql://127.0.0.1:56432/pgbouncer"
                    + "?sslmode=verify-full&sslrootcert=.local/dev/tls/ca.crt (SHOW POOLS).")
    String pgbouncerAdminUrl;

    @Option(names = "--db-user", defaultValue = "identity", description = "Database user (default: ${DEFAULT-VALUE}).")
    String user;

    @Option(names = "--db-password", defaultValue = "${env:LOADTEST_DB_PASSWORD:-identity-local-dev}",
            description = "Database password (default: $LOADTEST_DB_PASSWORD or the local stack's).")
    String password;

    @Option(names = "--db-name", defaultValue = "identity",
            description = "The service's database, whose connections are counted (default: ${DEFAULT-VALUE}).")
    String databaseName;

    DatabaseAccess access() {
        return new DatabaseAccess(postgresUrl, pgbouncerAdminUrl, user, password, databaseName);
    }
}
