package io.deviceidentity.loadtest.db;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;

import io.vertx.core.net.PemTrustOptions;
import io.vertx.pgclient.PgConnectOptions;
import io.vertx.pgclient.SslMode;

/** The watcher reads the same pgJDBC URLs bench.sh passes (TLS-only stack) without sending pgJDBC's own keys. */
class ConnectionWatcherTlsOptionsTest {

    @Test
    void verifyFullWithARootCertTrustsThatCaChecksTheHostNameAndSendsNoSslrootcertStartupParameter() {
        PgConnectOptions options = ConnectionWatcher.fromJdbcUrl(
                "jdbc:postgresql://127.0.0.1:56432/pgbouncer?sslmode=verify-full&sslrootcert=/stack/tls/ca.crt");
        assertEquals(SslMode.VERIFY_FULL, options.getSslMode());
        assertEquals("HTTPS", options.getHostnameVerificationAlgorithm());
        assertEquals(List.of("/stack/tls/ca.crt"), ((PemTrustOptions) options.getTrustOptions()).getCertPaths());
        assertEquals("pgbouncer", options.getDatabase());
        assertTrue(options.getProperties().keySet().stream().noneMatch(key -> key.startsWith("ssl")),
                options.getProperties()::toString);
    }

    @Test
    void sslrootcertFirstInTheQueryLeavesTheOtherParametersInPlace() {
        PgConnectOptions options = ConnectionWatcher.fromJdbcUrl(
                "jdbc:postgresql://127.0.0.1:55432/identity?sslrootcert=%2Fa%20b%2Fca.crt&sslmode=verify-full");
        assertEquals(SslMode.VERIFY_FULL, options.getSslMode());
        assertEquals(List.of("/a b/ca.crt"), ((PemTrustOptions) options.getTrustOptions()).getCertPaths());
        assertEquals(55432, options.getPort());
    }

    @Test
    void aUrlWithoutTlsParametersStaysPlain() {
        PgConnectOptions options = ConnectionWatcher.fromJdbcUrl("jdbc:postgresql://127.0.0.1:55432/identity");
        assertEquals(SslMode.DISABLE, options.getSslMode());
        assertNull(options.getTrustOptions());
    }
}
