package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.ConfigMap;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.openshift.api.model.monitoring.v1.ServiceMonitor;

/** The optional ServiceMonitors and the Grafana dashboard. */
class ObservabilityTest {

    @Test
    void serviceMonitorsAreOffByDefaultSoThatAClusterWithoutTheirCrdInstalls() {
        assertTrue(Chart.render().resources().stream().noneMatch(r -> r.getKind().equals("ServiceMonitor")));
    }

    @Test
    void serviceMonitorsScrapeQuarkusMetricsAndTheExporter() {
        List<ServiceMonitor> monitors = Chart.render(Chart.set("metrics.serviceMonitor.enabled", true,
                "pgbouncer.exporter.enabled", true)).all(ServiceMonitor.class);
        Map<String, String> pathByName = new java.util.TreeMap<>();
        for (ServiceMonitor m : monitors) {
            pathByName.put(m.getMetadata().getName(), m.getSpec().getEndpoints().get(0).getPath());
        }
        assertEquals(Map.of(Chart.name("auth-service"), "/q/metrics", Chart.name("registration-service"), "/q/metrics",
                Chart.name("pgbouncer"), "/metrics"), pathByName);
    }

    @Test
    void dashboardShowsOutcomesBcryptAdmissionPoolUsagePgbouncerWaitsAndHpaReplicas() throws Exception {
        Chart.Rendered rendered = Chart.render(Chart.set("metrics.grafanaDashboard.enabled", true));
        ConfigMap map = rendered.get(ConfigMap.class, Chart.name("dashboard"));
        assertEquals("1", map.getMetadata().getLabels().get("grafana_dashboard"));
        JsonNode dashboard = new ObjectMapper().readTree(map.getData().get("device-identity.json"));
        Map<String, String> exprByTitle = new java.util.HashMap<>();
        for (JsonNode panel : dashboard.get("panels")) {
            List<String> exprs = new ArrayList<>();
            panel.get("targets").forEach(t -> exprs.add(t.get("expr").asText()));
            exprByTitle.put(panel.get("title").asText(), String.join("\n", exprs));
        }
        assertContains(exprByTitle.get("Authn outcomes by reason"), "identity_authn_outcomes_total", "reason");
        assertContains(exprByTitle.get("bcrypt admission"), "identity_bcrypt_queue_depth",
                "identity_bcrypt_allowed_wait_seconds", "identity_bcrypt_refused_total", "by (stage)");
        assertTrue(exprByTitle.values().stream().noneMatch(e -> e.contains("identity_bcrypt_queue_capacity")),
                "the queue-capacity gauge no longer exists");
        assertContains(exprByTitle.get("JDBC pool usage"), "agroal_active_count", "agroal_awaiting_count");
        assertContains(exprByTitle.get("PgBouncer waits"), "pgbouncer_pools_client_waiting_connections");
        assertContains(exprByTitle.get("HPA replicas"), "kube_horizontalpodautoscaler_status_current_replicas");
    }

    @Test
    void dashboardShowsTheFastPathAgainstBcryptItsFallbacksWritesAndSingleFlight() throws Exception {
        Map<String, String> exprByTitle = exprByTitle(Chart.render(Chart.set("metrics.grafanaDashboard.enabled", true)));
        // Fast-path allows (reason verified) against bcrypt allows (reason ok), and their ratio.
        assertContains(exprByTitle.get("Fast path vs bcrypt allows"), "identity_authn_outcomes_total",
                "result=\"allow\",reason=\"verified\"", "result=\"allow\",reason=\"ok\"", ") / sum(");
        assertContains(exprByTitle.get("Fast path fallbacks by cause"), "identity_fastpath_fallbacks_total", "by (cause)",
                "identity_fastpath_allows_total");
        assertContains(exprByTitle.get("Verifier writes"), "identity_fastpath_writes_total", "by (result)",
                "identity_fastpath_writes_dropped_total", "identity_fastpath_write_queue_depth");
        assertContains(exprByTitle.get("bcrypt single-flight"), "identity_bcrypt_joined_total", "identity_bcrypt_flights");
        assertContains(exprByTitle.get("Fast path on"), "identity_fastpath_enabled");
        // Every metric the panels name is one the services export (MetricNames, in Prometheus form).
        String names = Chart.read(Chart.REPO.resolve("identity-core/src/main/java/io/deviceidentity/metrics/MetricNames.java"));
        for (String metric : List.of("identity.fastpath.enabled", "identity.fastpath.allows", "identity.fastpath.fallbacks",
                "identity.fastpath.writes", "identity.fastpath.writes.dropped", "identity.fastpath.write.queue.depth",
                "identity.bcrypt.joined", "identity.bcrypt.flights")) {
            assertTrue(names.contains("\"" + metric + "\""), metric + " is not in MetricNames");
        }
        // Panels do not overlap.
        JsonNode dashboard = dashboard(Chart.render(Chart.set("metrics.grafanaDashboard.enabled", true)));
        java.util.Set<String> cells = new java.util.HashSet<>();
        for (JsonNode panel : dashboard.get("panels")) {
            JsonNode g = panel.get("gridPos");
            for (int x = g.get("x").asInt(); x < g.get("x").asInt() + g.get("w").asInt(); x++) {
                for (int y = g.get("y").asInt(); y < g.get("y").asInt() + g.get("h").asInt(); y++) {
                    assertTrue(cells.add(x + "," + y), () -> panel.get("title").asText() + " overlaps another panel");
                }
            }
        }
    }

    @Test
    void dashboardShowsEveryAdmissionAndFastPathMetricTheServicesExport() throws Exception {
        String all = String.join("\n", exprByTitle(Chart.render(Chart.set("metrics.grafanaDashboard.enabled", true))).values());
        for (String metric : List.of("identity_bcrypt_queue_wait_seconds", "identity_bcrypt_allowed_wait_seconds",
                "identity_bcrypt_standing_queue", "identity_bcrypt_refused_total", "identity_bcrypt_wasted_total",
                "identity_bcrypt_idle_threads", "identity_database_active", "identity_database_concurrency",
                "identity_database_refused_total", "identity_database_queue_depth", "identity_database_queue_wait_seconds",
                "identity_fastpath_enabled", "identity_fastpath_allows_total", "identity_fastpath_fallbacks_total",
                "identity_fastpath_writes_total", "identity_fastpath_writes_dropped_total",
                "identity_fastpath_write_queue_depth", "identity_bcrypt_joined_total", "identity_bcrypt_flights",
                "ft_circuitbreaker_state_current", "http_server_requests_seconds_max")) {
            assertTrue(all.contains(metric), metric + " is on no panel");
        }
        assertTrue(all.contains("by (stage)"), "bcrypt refusals by stage");
    }

    private static JsonNode dashboard(Chart.Rendered rendered) throws Exception {
        return new ObjectMapper().readTree(rendered.get(ConfigMap.class, Chart.name("dashboard")).getData().get("device-identity.json"));
    }

    private static Map<String, String> exprByTitle(Chart.Rendered rendered) throws Exception {
        Map<String, String> exprByTitle = new java.util.HashMap<>();
        for (JsonNode panel : dashboard(rendered).get("panels")) {
            List<String> exprs = new ArrayList<>();
            panel.get("targets").forEach(t -> exprs.add(t.get("expr").asText()));
            exprByTitle.put(panel.get("title").asText(), String.join("\n", exprs));
        }
        return exprByTitle;
    }

    @Test
    void theDashboardIsOffByDefault() {
        List<HasMetadata> maps = Chart.render().resources();
        assertTrue(maps.stream().noneMatch(r -> r.getMetadata().getName().equals(Chart.name("dashboard"))));
    }

    private static void assertContains(String text, String... parts) {
        assertTrue(text != null, "panel missing");
        for (String part : parts) {
            assertTrue(text.contains(part), () -> part + " not in " + text);
        }
    }
}
