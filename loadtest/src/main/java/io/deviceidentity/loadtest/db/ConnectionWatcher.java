package io.deviceidentity.loadtest.db;

import java.net.URLDecoder;
import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.net.PemTrustOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.PgConnection;
import io.vertx.pgclient.SslMode;
import io.vertx.sqlclient.Row;
import io.vertx.sqlclient.RowSet;
import io.vertx.sqlclient.Tuple;

/**
 * Samples how many client connections PostgreSQL and PgBouncer hold for the service's database, and keeps the
 * peaks: PostgreSQL client backends from {@code pg_stat_activity} (here: PgBouncer's server connections and
 * migrations), PgBouncer clients ({@code cl_active + cl_waiting} from {@code SHOW POOLS}: the services' pooled
 * connections). It samples every 100 ms with non-blocking queries on the run's event loop; a spike shorter than
 * that can be missed, as on any dashboard. A failure to observe is reported, never fatal: the load run goes on.
 */
public final class ConnectionWatcher implements AutoCloseable {

    private static final long PERIOD_MILLIS = 100;
    /** pgJDBC's {@code sslrootcert} parameter in a URL's query: its separator and its (URL-encoded) value. */
    private static final Pattern SSL_ROOT_CERT = Pattern.compile("([?&])sslrootcert=([^&]*)");
    private static final String BACKENDS = "SELECT count(*) FROM pg_stat_activity "
            + "WHERE datname = $1 AND backend_type = 'client backend' AND pid <> pg_backend_pid()";

    private final Vertx vertx;
    private final DatabaseAccess access;
    private final Probe postgres;
    private final Probe pgbouncer;
    private long timer = -1;
    private String problem;

    public ConnectionWatcher(Vertx vertx, DatabaseAccess access) {
        this.vertx = vertx;
        this.access = access;
        this.postgres = access.postgresUrl() == null ? null
                : new Probe(options(access.postgresUrl(), Map.of("application_name", "loadtest-watcher")));
        // PgBouncer 1.18's admin console rejects every startup parameter it does not know (pgJDBC cannot connect).
        this.pgbouncer = access.pgbouncerAdminUrl() == null ? null
                : new Probe(options(access.pgbouncerAdminUrl(), Map.of()));
    }

    /** Starts sampling; call on the event loop. */
    public void start() {
        if (postgres != null || pgbouncer != null) {
            timer = vertx.setPeriodic(PERIOD_MILLIS, id -> sample());
        }
    }

    public Integer peakPostgres() {
        return postgres == null ? null : postgres.peak();
    }

    public Integer peakPgbouncer() {
        return pgbouncer == null ? null : pgbouncer.peak();
    }

    /** Peak since the previous call (for the per-second series). */
    public Integer takeWindowPostgres() {
        return postgres == null ? null : postgres.takeWindow();
    }

    public Integer takeWindowPgbouncer() {
        return pgbouncer == null ? null : pgbouncer.takeWindow();
    }

    public String problem() {
        return problem;
    }

    private void sample() {
        if (postgres != null) {
            postgres.sample(c -> c.preparedQuery(BACKENDS).execute(Tuple.of(access.databaseName()))
                    .map(rows -> rows.iterator().next().getInteger(0)));
        }
        if (pgbouncer != null) {
            pgbouncer.sample(c -> c.query("SHOW POOLS").execute().map(this::pgbouncerClients));
        }
    }

    private int pgbouncerClients(RowSet<Row> pools) {
        int clients = 0;
        for (Row pool : pools) {
            if (access.databaseName().equals(pool.getString("database"))) {
                clients += pool.getInteger("cl_active") + pool.getInteger("cl_waiting");
            }
        }
        return clients;
    }

    private PgConnectOptions options(String jdbcUrl, Map<String, String> startupProperties) {
        PgConnectOptions options = fromJdbcUrl(jdbcUrl)
                .setUser(access.user())
                .setPassword(access.password())
                .setConnectTimeout(2_000);
        options.setProperties(startupProperties);
        return options;
    }

    /**
     * The reactive client's options for a pgJDBC URL, TLS included: {@code sslmode} as Vert.x reads it, and pgJDBC's
     * {@code sslrootcert} (a PEM CA file) as the trusted CA. Vert.x would send a parameter it does not know as a
     * startup parameter, which PostgreSQL and PgBouncer refuse, so {@code sslrootcert} is taken out of the URI
     * first. {@code verify-full} also checks the host name (Vert.x requires the algorithm to be named for it).
     */
    static PgConnectOptions fromJdbcUrl(String jdbcUrl) {
        String uri = jdbcUrl.replaceFirst("^jdbc:", "");
        Matcher rootCert = SSL_ROOT_CERT.matcher(uri);
        String ca = null;
        if (rootCert.find()) {
            ca = URLDecoder.decode(rootCert.group(2), StandardCharsets.UTF_8);
            uri = uri.substring(0, rootCert.start()) + (rootCert.group(1).equals("?") && rootCert.end() < uri.length()
                    ? "?" + uri.substring(rootCert.end() + 1) : uri.substring(rootCert.end()));
        }
        PgConnectOptions options = PgConnectOptions.fromUri(uri);
        if (ca != null) {
            options.setPemTrustOptions(new PemTrustOptions().addCertPath(ca));
        }
        if (options.getSslMode() == SslMode.VERIFY_FULL) {
            options.setHostnameVerificationAlgorithm("HTTPS");
        }
        return options;
    }

    @Override
    public void close() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
        }
        if (postgres != null) {
            postgres.close();
        }
        if (pgbouncer != null) {
            pgbouncer.close();
        }
    }

    /** One observed endpoint: its connection (opened lazily, reopened after a failure) and its peaks. */
    private final class Probe {
        private final PgConnectOptions options;
        private PgConnection connection;
        private boolean busy;
        private int peak = -1;
        private int window = -1;

        Probe(PgConnectOptions options) {
            this.options = options;
        }

        void sample(java.util.function.Function<PgConnection, Future<Integer>> query) {
            if (busy) {
                return; // the previous sample has not come back yet; skip rather than pile up
            }
            busy = true;
            Future<PgConnection> open = connection != null ? Future.succeededFuture(connection)
                    : PgConnection.connect(vertx, options).onSuccess(c -> connection = c);
            open.compose(query).onComplete(result -> {
                busy = false;
                if (result.succeeded()) {
                    peak = Math.max(peak, result.result());
                    window = Math.max(window, result.result());
                } else {
                    problem = result.cause().getMessage();
                    close();
                }
            });
        }

        Integer peak() {
            return peak < 0 ? null : peak;
        }

        Integer takeWindow() {
            int value = window;
            window = -1;
            return value < 0 ? null : value;
        }

        void close() {
            if (connection != null) {
                connection.close();
                connection = null;
            }
        }
    }
}
