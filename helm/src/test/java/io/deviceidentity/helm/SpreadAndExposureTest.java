package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.TopologySpreadConstraint;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.networking.v1.Ingress;
import io.fabric8.kubernetes.api.model.networking.v1.IngressRule;

/**
 * auth-service's replicas are spread over nodes and zones by default, softly, so that a one-node cluster still
 * schedules them; registration-service can be exposed outside the cluster by its Service type or an Ingress with TLS,
 * both off by default.
 */
class SpreadAndExposureTest {

    private static final Chart.Rendered DEFAULTS = Chart.render();

    @Test
    void authServiceIsSpreadOverNodesAndZonesSoftlyByDefault() throws Exception {
        PodSpec pod = pod(DEFAULTS, "auth-service");
        List<TopologySpreadConstraint> spread = pod.getTopologySpreadConstraints();
        assertEquals(List.of("kubernetes.io/hostname", "topology.kubernetes.io/zone"),
                spread.stream().map(TopologySpreadConstraint::getTopologyKey).toList());
        Map<String, String> selector = DEFAULTS.get(Deployment.class, Chart.name("auth-service")).getSpec().getSelector()
                .getMatchLabels();
        for (TopologySpreadConstraint c : spread) {
            assertEquals("ScheduleAnyway", c.getWhenUnsatisfiable(), "a one-node kind cluster must still schedule");
            assertEquals(1, c.getMaxSkew());
            assertEquals(selector, c.getLabelSelector().getMatchLabels(), "counts the Deployment's own pods");
        }

        PodSpec hard = pod(Chart.render(Chart.set("authService.topologySpread[0].topologyKey", "kubernetes.io/hostname",
                "authService.topologySpread[0].whenUnsatisfiable", "DoNotSchedule")), "auth-service");
        assertEquals(1, hard.getTopologySpreadConstraints().size());
        assertEquals("DoNotSchedule", hard.getTopologySpreadConstraints().get(0).getWhenUnsatisfiable());
        java.nio.file.Path none = java.nio.file.Files.createTempFile("no-spread", ".yaml");
        java.nio.file.Files.writeString(none, "authService:\n  topologySpread: []\n");
        PodSpec off = pod(Chart.render(Map.of(), none), "auth-service");
        assertTrue(off.getTopologySpreadConstraints() == null || off.getTopologySpreadConstraints().isEmpty());
    }

    @Test
    void registrationServiceStaysInsideTheClusterByDefault() {
        assertEquals("ClusterIP", DEFAULTS.get(Service.class, Chart.name("registration-service")).getSpec().getType());
        assertTrue(DEFAULTS.all(Ingress.class).isEmpty());
    }

    @Test
    void registrationServiceCanBeALoadBalancerLimitedToItsCallers() {
        Service service = Chart.render(Chart.set("registrationService.service.type", "LoadBalancer",
                "registrationService.service.loadBalancerSourceRanges[0]", "10.30.0.0/16",
                "registrationService.service.annotations.example\\.com/scheme", "internal"))
                .get(Service.class, Chart.name("registration-service"));
        assertEquals("LoadBalancer", service.getSpec().getType());
        assertEquals(List.of("10.30.0.0/16"), service.getSpec().getLoadBalancerSourceRanges());
        assertEquals(Map.of("example.com/scheme", "internal"), service.getMetadata().getAnnotations());
    }

    @Test
    void registrationServicesIngressTerminatesTlsForItsHostAndReachesOnlyTheApiOverHttps() {
        Chart.Rendered rendered = Chart.render(Chart.set("registrationService.ingress.enabled", true,
                "registrationService.ingress.host", "devices.example.com",
                "registrationService.ingress.tlsSecret", "devices-example-com-tls",
                "registrationService.ingress.className", "nginx",
                "registrationService.ingress.annotations.nginx\\.ingress\\.kubernetes\\.io/backend-protocol", "HTTPS"));
        Ingress ingress = rendered.get(Ingress.class, Chart.name("registration-service"));
        assertEquals("nginx", ingress.getSpec().getIngressClassName());
        assertEquals(List.of("devices.example.com"), ingress.getSpec().getTls().get(0).getHosts());
        assertEquals("devices-example-com-tls", ingress.getSpec().getTls().get(0).getSecretName());
        IngressRule rule = ingress.getSpec().getRules().get(0);
        assertEquals("devices.example.com", rule.getHost());
        assertEquals(1, rule.getHttp().getPaths().size());
        assertEquals("/v1", rule.getHttp().getPaths().get(0).getPath());
        assertEquals("Prefix", rule.getHttp().getPaths().get(0).getPathType());
        var backend = rule.getHttp().getPaths().get(0).getBackend().getService();
        assertEquals(Chart.name("registration-service"), backend.getName());
        assertEquals("https", backend.getPort().getName(), "the service's HTTPS port, never management");
        assertNull(backend.getPort().getNumber());
        assertEquals("HTTPS", ingress.getMetadata().getAnnotations().get("nginx.ingress.kubernetes.io/backend-protocol"));
    }

    @Test
    void anIngressWithoutHostOrTlsIsRefused() {
        String noHost = Chart.refusal(Chart.set("registrationService.ingress.enabled", true,
                "registrationService.ingress.tlsSecret", "x-tls"));
        assertTrue(noHost.contains("registrationService.ingress.host is empty"), noHost);
        String noTls = Chart.refusal(Chart.set("registrationService.ingress.enabled", true,
                "registrationService.ingress.host", "devices.example.com"));
        assertTrue(noTls.contains("without registrationService.ingress.tlsSecret"), noTls);
        assertTrue(noTls.contains("tls.plaintextAllowedBecause"), "names the opt-out: " + noTls);
    }

    private static PodSpec pod(Chart.Rendered rendered, String component) {
        return rendered.get(Deployment.class, Chart.name(component)).getSpec().getTemplate().getSpec();
    }
}
