package io.deviceidentity.loadtest.db;

/**
 * Where to look at the database from the outside: PostgreSQL directly (pg_stat_activity, seeding) and PgBouncer's
 * admin console (SHOW POOLS). Either URL may be null when not observed.
 */
public record DatabaseAccess(String postgresUrl, String pgbouncerAdminUrl, String user, String password,
        String databaseName) {
}
