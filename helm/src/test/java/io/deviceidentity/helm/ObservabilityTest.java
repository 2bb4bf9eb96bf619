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
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;

/** The optional ServiceMonitors and the Grafana dashboard. */
class ObservabilityTest {

    @Test
    void serviceMonitorsAreOffByDefaultSoThatAClusterWithoutTheirCrdInstalls() {
        assertTrue(Chart.render().resources().stream().noneMatch(r -> r.getKind().equals("ServiceMonitor")));
    }

    @Test
    void serviceMonitorsScrapeQuarkusMetricsAndTheExporter() {
        List<GenericKubernetesResource> monitors = Chart.render(Chart.set("metrics.serviceMonitor.enabled", true,
                "pgbouncer.exporter.enabled", true)).resources().stream()
                .filter(r -> r.getKind().equals("ServiceMonitor")).map(GenericKubernetesResource.class::cast).toList();
        Map<String, String> pathByName = new java.util.TreeMap<>();
        for (GenericKubernetesResource m : monitors) {
            Map<String, Object> endpoint = m.<List<Map<String, Object>>>get("spec", "endpoints").get(0);
            pathByName.put(m.getMetadata().getName(), (String) endpoint.get("path"));
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
