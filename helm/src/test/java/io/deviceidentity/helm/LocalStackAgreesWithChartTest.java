package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * One source of truth per setting: the local stack (pgbouncer/pgbouncer.ini, scripts/stack.sh) and the chart's
 * defaults must agree on everything that is not about where things run.
 */
class LocalStackAgreesWithChartTest {

    /**
     * Keys that say where PgBouncer runs (addresses, files, where its TLS key and certificates are mounted), not how
     * it pools or whether it encrypts: allowed to differ. The TLS modes are compared like every other key.
     */
    private static final Set<String> DEPLOYMENT_SPECIFIC = Set.of("listen_addr", "listen_port", "unix_socket_dir",
            "auth_file", "logfile", "pidfile", "client_tls_key_file", "client_tls_cert_file", "client_tls_ca_file",
            "server_tls_ca_file",
            // The chart's console users are PgBouncer's own (pgbouncer.console); a developer's local stack
            // administers its PgBouncer as the owner role.
            "admin_users", "stats_users");

    /** PgBouncer's TLS modes: both must render them, and they must agree (require / verify-full). */
    private static final Set<String> TLS_MODES = Set.of("client_tls_sslmode", "server_tls_sslmode");

    @Test
    void pgbouncerIniOfTheLocalStackAndOfTheChartAgreeOnEverySizingAndBehaviourKey() {
        Map<String, String> local = without(Ini.parse(Chart.read(Chart.REPO.resolve("pgbouncer/pgbouncer.ini"))).section("pgbouncer"));
        Map<String, String> chart = without(PgBouncerTest.ini(Chart.render()).section("pgbouncer"));
        for (String mode : TLS_MODES) {
            assertTrue(local.containsKey(mode) && chart.containsKey(mode), mode + " is set in both");
        }
        assertEquals(local, chart, "pgbouncer/pgbouncer.ini and the chart's pgbouncer.* defaults disagree");
        assertTrue(local.containsKey("max_client_conn") && local.containsKey("default_pool_size")
                && local.containsKey("query_wait_timeout"), "the comparison covers the sizing keys");
    }

    @Test
    void postgresqlMaxConnectionsOfTheLocalStackIsTheChartDefault() {
        Matcher m = Pattern.compile("-c max_connections=(\\d+)").matcher(Chart.read(Chart.REPO.resolve("scripts/stack.sh")));
        assertTrue(m.find(), "scripts/stack.sh no longer sets max_connections");
        String chart = Chart.render().get(io.fabric8.kubernetes.api.model.apps.StatefulSet.class, Chart.name("postgresql"))
                .getSpec().getTemplate().getSpec().getContainers().get(0).getArgs().stream()
                .filter(a -> a.startsWith("max_connections=")).findFirst().orElseThrow();
        assertEquals("max_connections=" + m.group(1), chart);
    }

    private static Map<String, String> without(Map<String, String> section) {
        Map<String, String> kept = new TreeMap<>(section);
        kept.keySet().removeAll(DEPLOYMENT_SPECIFIC);
        return kept;
    }
}
