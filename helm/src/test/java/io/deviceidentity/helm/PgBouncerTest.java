package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.apps.Deployment;

/** PgBouncer: transaction mode, ini and userlist in a Secret, derived pool sizes, a draining preStop, the exporter. */
class PgBouncerTest {

    /**
     * Every key PgBouncer 1.18 accepts in [pgbouncer] that the chart may write. 1.18 refuses to start on a key it
     * does not know (max_prepared_statements and the other ≥1.21 keys), and the image runs 1.25.
     */
    static final Set<String> KEYS_KNOWN_TO_1_18 = Set.of("listen_addr", "listen_port", "unix_socket_dir", "auth_type",
            "auth_file", "admin_users", "stats_users", "pool_mode", "max_client_conn", "default_pool_size",
            "reserve_pool_size", "min_pool_size", "max_db_connections", "query_wait_timeout", "server_idle_timeout",
            "server_connect_timeout", "server_login_retry", "server_lifetime", "client_idle_timeout",
            "ignore_startup_parameters", "logfile", "pidfile",
            // TLS: declared in 1.18's src/main.c (tag pgbouncer_1_18_0).
            "client_tls_sslmode", "client_tls_key_file", "client_tls_cert_file", "client_tls_ca_file",
            "server_tls_sslmode", "server_tls_ca_file");

    @Test
    void iniIsTransactionPoolingWithThePoolSizesFromTheValues() {
        Map<String, String> ini = ini(Chart.render(Chart.set("pgbouncer.maxClientConn", 250, "pgbouncer.defaultPoolSize", 15,
                "pgbouncer.reservePoolSize", 2, "pgbouncer.queryWaitTimeout", "2s")))
                .section("pgbouncer");
        assertEquals("transaction", ini.get("pool_mode"));
        assertEquals("250", ini.get("max_client_conn"));
        assertEquals("15", ini.get("default_pool_size"));
        assertEquals("2", ini.get("reserve_pool_size"));
        assertEquals("2", ini.get("query_wait_timeout"), "whole seconds, as 1.18 reads them");
        assertEquals("extra_float_digits", ini.get("ignore_startup_parameters"));
    }

    @Test
    void iniPointsAtTheBundledPostgresqlOrTheExternalOne() {
        assertEquals("host=" + Chart.name("postgresql") + " port=5432 dbname=identity",
                ini(Chart.render()).section("databases").get("identity"));
        assertEquals("host=db.example.internal port=6543 dbname=identity",
                ini(Chart.render(Chart.set("postgresql.enabled", false, "tls.database.caSecret", "db-ca", "postgresql.external.host", "db.example.internal",
                        "postgresql.external.port", 6543))).section("databases").get("identity"));
    }

    @Test
    void iniUsesOnlyKeysPgbouncer118Knows() {
        Set<String> keys = ini(Chart.render(Chart.set("pgbouncer.exporter.enabled", true))).section("pgbouncer").keySet();
        assertTrue(KEYS_KNOWN_TO_1_18.containsAll(keys), () -> "unknown to 1.18: " + keys.stream().filter(k -> !KEYS_KNOWN_TO_1_18.contains(k)).toList());
    }

    @Test
    void userlistHoldsBothDatabaseUsersAndTheirPasswordsInTheSecret() {
        Secret secret = Chart.render().get(Secret.class, Chart.name("pgbouncer"));
        // registration-service's owner role and auth-service's own role: PgBouncer logs in to PostgreSQL as each.
        // Then PgBouncer's own console users (pgbouncer.console), which exist only here.
        List<String> console = List.of("\"pgbouncer_admin\" \"test-pgbouncer-admin-password\"",
                "\"pgbouncer_stats\" \"test-pgbouncer-stats-password\"");
        assertEquals(concat(List.of("\"identity\" \"test-db-password\"", "\"identity_auth\" \"test-auth-db-password\""), console),
                decode(secret, "userlist.txt").trim().lines().toList());
        assertEquals(concat(List.of("\"identity\" \"test-db-password\"", "\"device_auth\" \"another-auth-password\""), console),
                decode(Chart.render(Chart.set("database.auth.user", "device_auth", "database.auth.password", "another-auth-password"))
                        .get(Secret.class, Chart.name("pgbouncer")), "userlist.txt").trim().lines().toList());
        assertEquals("/etc/pgbouncer/userlist.txt", Ini.parse(decode(secret, "pgbouncer.ini")).section("pgbouncer").get("auth_file"));
    }

    @Test
    void preStopSendsSigintThenWaitsAndTheGracePeriodOutlastsIt() {
        PodSpec pod = Chart.render(Chart.set("pgbouncer.drainSeconds", 25)).get(Deployment.class, Chart.name("pgbouncer"))
                .getSpec().getTemplate().getSpec();
        List<String> command = pod.getContainers().get(0).getLifecycle().getPreStop().getExec().getCommand();
        assertEquals(List.of("/bin/sh", "-c", "killall -INT pgbouncer; sleep 25"), command);
        assertTrue(pod.getTerminationGracePeriodSeconds() > 25);
    }

    @Test
    void configIsMountedFromTheSecretReadOnlyAndRollsThePodsWhenItChanges() {
        Chart.Rendered rendered = Chart.render();
        Deployment deployment = rendered.get(Deployment.class, Chart.name("pgbouncer"));
        Container c = deployment.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertEquals("edoburu/pgbouncer:v1.25.2-p0", c.getImage());
        assertEquals("/etc/pgbouncer", c.getVolumeMounts().get(0).getMountPath());
        assertTrue(c.getVolumeMounts().get(0).getReadOnly());
        assertTrue(c.getSecurityContext().getReadOnlyRootFilesystem());
        assertEquals(Chart.name("pgbouncer"), deployment.getSpec().getTemplate().getSpec().getVolumes().get(0).getSecret().getSecretName());
        String checksum = deployment.getSpec().getTemplate().getMetadata().getAnnotations().get("checksum/config");
        String changed = Chart.render(Chart.set("pgbouncer.defaultPoolSize", 19)).get(Deployment.class, Chart.name("pgbouncer"))
                .getSpec().getTemplate().getMetadata().getAnnotations().get("checksum/config");
        assertFalse(checksum.equals(changed));
    }

    @Test
    void exporterSidecarIsOptionalAndReadsItsConnectionStringFromTheSecret() {
        assertEquals(List.of("pgbouncer", "tls-reload"), Chart.render().get(Deployment.class, Chart.name("pgbouncer"))
                .getSpec().getTemplate().getSpec().getContainers().stream().map(Container::getName).toList());
        Chart.Rendered rendered = Chart.render(Chart.set("pgbouncer.exporter.enabled", true));
        List<Container> containers = rendered.get(Deployment.class, Chart.name("pgbouncer")).getSpec().getTemplate().getSpec().getContainers();
        assertEquals(List.of("pgbouncer", "tls-reload", "exporter"), containers.stream().map(Container::getName).toList());
        Container exporter = containers.get(2);
        assertEquals(9127, exporter.getPorts().get(0).getContainerPort());
        assertEquals("exporter-connection-string", exporter.getEnv().get(0).getValueFrom().getSecretKeyRef().getKey());
        // As PgBouncer's own stats user, over TLS, since PgBouncer requires it of every client.
        assertEquals("postgres://pgbouncer_stats:test-pgbouncer-stats-password@127.0.0.1:5432/pgbouncer?sslmode=require",
                decode(rendered.get(Secret.class, Chart.name("pgbouncer")), "exporter-connection-string"));
    }

    private static List<String> concat(List<String> a, List<String> b) {
        List<String> all = new java.util.ArrayList<>(a);
        all.addAll(b);
        return all;
    }

    static Ini ini(Chart.Rendered rendered) {
        return Ini.parse(decode(rendered.get(Secret.class, Chart.name("pgbouncer")), "pgbouncer.ini"));
    }

    static String decode(Secret secret, String key) {
        return new String(Base64.getDecoder().decode(secret.getData().get(key)), StandardCharsets.UTF_8);
    }
}
