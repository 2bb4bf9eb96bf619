package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyPeer;

/**
 * An EMQX outside the cluster can reach auth-service: {@code authService.service} makes its
 * Service a load balancer limited to the brokers' addresses, and the NetworkPolicy admits the same addresses as an
 * ipBlock. By default the Service stays ClusterIP, as before.
 */
class ExternalEmqxServiceTest {

    @Test
    void byDefaultAuthServiceIsClusterIpOnly() {
        Service service = Chart.render().get(Service.class, Chart.name("auth-service"));
        assertEquals("ClusterIP", service.getSpec().getType());
        assertTrue(service.getSpec().getLoadBalancerSourceRanges() == null
                || service.getSpec().getLoadBalancerSourceRanges().isEmpty());
        assertTrue(service.getMetadata().getAnnotations() == null || service.getMetadata().getAnnotations().isEmpty());
    }

    @Test
    void anExternalEmqxGetsALoadBalancerLimitedToItsAddressesAndAnIpBlockInTheNetworkPolicy() {
        Chart.Rendered rendered = Chart.render(Chart.set("emqx.enabled", false,
                "authService.service.type", "LoadBalancer",
                "authService.service.annotations.service\\.beta\\.kubernetes\\.io/aws-load-balancer-scheme", "internal",
                "authService.service.loadBalancerSourceRanges[0]", "10.20.0.0/16",
                "networkPolicy.externalEmqxFrom[0].ipBlock.cidr", "10.20.0.0/16"));
        Service service = rendered.get(Service.class, Chart.name("auth-service"));
        assertEquals("LoadBalancer", service.getSpec().getType());
        assertEquals(List.of("10.20.0.0/16"), service.getSpec().getLoadBalancerSourceRanges());
        assertEquals(Map.of("service.beta.kubernetes.io/aws-load-balancer-scheme", "internal"),
                service.getMetadata().getAnnotations());
        NetworkPolicy policy = rendered.get(NetworkPolicy.class, Chart.name("auth-service"));
        List<NetworkPolicyPeer> from = policy.getSpec().getIngress().get(0).getFrom();
        assertEquals("10.20.0.0/16", from.get(0).getIpBlock().getCidr());
        // registration-service's Service is untouched.
        assertEquals("ClusterIP", rendered.get(Service.class, Chart.name("registration-service")).getSpec().getType());
    }

    @Test
    void theSchemaRefusesAnUnknownServiceTypeOrKey() {
        assertThrows(IllegalStateException.class, () -> Chart.renderYaml(Chart.set("authService.service.type", "External")));
        assertThrows(IllegalStateException.class, () -> Chart.renderYaml(Chart.set("authService.service.port", 80)));
        assertThrows(IllegalStateException.class,
                () -> Chart.renderYaml(Chart.set("authService.service.loadBalancerSourceRanges[0]", "everyone")));
    }
}
