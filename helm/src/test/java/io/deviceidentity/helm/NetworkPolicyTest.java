package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;

/** Only EMQX (and labelled load-test/test clients) reach auth-service; only PgBouncer (and migrations) reach PostgreSQL. */
class NetworkPolicyTest {

    static final String AUTHN_CLIENT = "device-identity.io/authn-client";
    private static final Chart.Rendered DEFAULTS = Chart.render(Chart.set("networkPolicy.metricsFrom", "null"));

    @Test
    void onlyEmqxAndLabelledAuthnClientsReachTheAuthPort() {
        NetworkPolicy policy = DEFAULTS.get(NetworkPolicy.class, Chart.name("auth-service"));
        assertEquals(selector(Deployment.class, "auth-service"), policy.getSpec().getPodSelector().getMatchLabels());
        assertEquals(List.of("Ingress"), policy.getSpec().getPolicyTypes());
        List<NetworkPolicyIngressRule> rules = policy.getSpec().getIngress();
        assertEquals(1, rules.size());
        assertEquals(8081, rules.get(0).getPorts().get(0).getPort().getIntVal());
        List<Map<String, String>> from = rules.get(0).getFrom().stream().map(p -> p.getPodSelector().getMatchLabels()).toList();
        assertEquals(List.of(selector(StatefulSet.class, "emqx"), Map.of(AUTHN_CLIENT, "true")), from);
    }

    @Test
    void anExternalEmqxIsAdmittedThroughTheConfiguredPeers() {
        NetworkPolicy policy = Chart.render(Chart.set("emqx.enabled", false,
                "networkPolicy.externalEmqxFrom[0].namespaceSelector.matchLabels.team", "mqtt"))
                .get(NetworkPolicy.class, Chart.name("auth-service"));
        List<NetworkPolicyPeer> from = policy.getSpec().getIngress().get(0).getFrom();
        assertEquals(Map.of("team", "mqtt"), from.get(0).getNamespaceSelector().getMatchLabels());
        assertEquals(Map.of(AUTHN_CLIENT, "true"), from.get(1).getPodSelector().getMatchLabels());
        assertEquals(2, from.size());
    }

    @Test
    void metricsScrapersGetTheirOwnRule() {
        NetworkPolicy policy = Chart.render().get(NetworkPolicy.class, Chart.name("auth-service"));
        assertEquals(2, policy.getSpec().getIngress().size());
        assertEquals(Map.of("kubernetes.io/metadata.name", "monitoring"),
                policy.getSpec().getIngress().get(1).getFrom().get(0).getNamespaceSelector().getMatchLabels());
    }

    @Test
    void onlyTheServicesReachPgbouncer() {
        NetworkPolicy policy = DEFAULTS.get(NetworkPolicy.class, Chart.name("pgbouncer"));
        List<Map<String, String>> from = policy.getSpec().getIngress().get(0).getFrom().stream()
                .map(p -> p.getPodSelector().getMatchLabels()).toList();
        assertEquals(List.of(selector(Deployment.class, "auth-service"), selector(Deployment.class, "registration-service")), from);
    }

    @Test
    void onlyPgbouncerAndRegistrationServiceMigrationsReachPostgresql() {
        NetworkPolicy policy = DEFAULTS.get(NetworkPolicy.class, Chart.name("postgresql"));
        assertEquals(selector(StatefulSet.class, "postgresql"), policy.getSpec().getPodSelector().getMatchLabels());
        List<NetworkPolicyIngressRule> rules = policy.getSpec().getIngress();
        assertEquals(1, rules.size());
        assertEquals(5432, rules.get(0).getPorts().get(0).getPort().getIntVal());
        List<Map<String, String>> from = rules.get(0).getFrom().stream().map(p -> p.getPodSelector().getMatchLabels()).toList();
        assertEquals(List.of(selector(Deployment.class, "pgbouncer"), selector(Deployment.class, "registration-service")), from);
    }

    @Test
    void policiesCanBeSwitchedOff() {
        assertTrue(Chart.render(Chart.set("networkPolicy.enabled", false)).all(NetworkPolicy.class).isEmpty());
    }

    /** The selector of a workload (ChartRendersTest checks that its pods carry it). */
    static Map<String, String> selector(Class<?> kind, String component) {
        if (kind == StatefulSet.class) {
            return DEFAULTS.get(StatefulSet.class, Chart.name(component)).getSpec().getSelector().getMatchLabels();
        }
        return DEFAULTS.get(Deployment.class, Chart.name(component)).getSpec().getSelector().getMatchLabels();
    }
}
