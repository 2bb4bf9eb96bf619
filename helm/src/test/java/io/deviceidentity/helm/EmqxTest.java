package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;

/** EMQX: a 3-node StatefulSet cluster found by DNS SRV, whose authn chain and authz source point at auth-service. */
class EmqxTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final Chart.Rendered DEFAULTS = Chart.render();
    private static final String AUTH_URL = "https://" + Chart.name("auth-service") + "." + Chart.NAMESPACE + ".svc:8081";

    @Test
    void authenticatorIsAuthServiceWithPipeliningOneAndATenSecondTimeout() throws Exception {
        List<Map<String, Object>> chain = JSON.readValue(env(DEFAULTS).get("EMQX_AUTHENTICATION"), new TypeReference<>() { });
        assertEquals(1, chain.size(), "the chart owns the whole chain");
        Map<String, Object> authn = chain.get(0);
        assertEquals("password_based", authn.get("mechanism"));
        assertEquals("http", authn.get("backend"));
        assertEquals("post", authn.get("method"));
        assertEquals(AUTH_URL + "/mqtt/authn", authn.get("url"));
        assertEquals(1, authn.get("enable_pipelining"));
        // Derived: 6 auth replicas x (2 + 20) = 132 admitted, + 25 % = 165, over 3 nodes x pipelining 1.
        assertEquals(55, authn.get("pool_size"));
        assertEquals("10s", authn.get("request_timeout"));
        assertEquals(Map.of("content-type", "application/json"), authn.get("headers"));
        assertEquals(Map.of("clientid", "${clientid}", "username", "${username}", "password", "${password}",
                "peerhost", "${peerhost}", "cert_common_name", "${cert_common_name}"), authn.get("body"));
    }

    @Test
    void authorizationReplacesTheDefaultSourcesAndDeniesWhatNoRuleMatches() throws Exception {
        Map<String, String> env = env(DEFAULTS);
        List<Map<String, Object>> sources = JSON.readValue(env.get("EMQX_AUTHORIZATION__SOURCES"), new TypeReference<>() { });
        assertEquals(1, sources.size());
        Map<String, Object> authz = sources.get(0);
        assertEquals("http", authz.get("type"));
        assertEquals(AUTH_URL + "/mqtt/authz", authz.get("url"));
        assertEquals(1, authz.get("enable_pipelining"));
        assertEquals(Map.of("clientid", "${clientid}", "username", "${username}", "peerhost", "${peerhost}",
                "action", "${action}", "topic", "${topic}", "qos", "${qos}", "retain", "${retain}"), authz.get("body"));
        assertEquals("deny", env.get("EMQX_AUTHORIZATION__NO_MATCH"));
        assertFalse(env.containsKey("EMQX_AUTHORIZATION__SOURCES__1"), "an indexed source would merge into acl.conf");
    }

    @Test
    void withoutTheAuthzSourceTheDefaultAclIsStillReplacedAndNoMatchDenies() {
        Map<String, String> env = env(Chart.render(Chart.set("emqx.authz.enabled", false)));
        assertEquals("[]", env.get("EMQX_AUTHORIZATION__SOURCES"));
        assertEquals("deny", env.get("EMQX_AUTHORIZATION__NO_MATCH"));
    }

    @Test
    void authnSettingsFollowTheValues() throws Exception {
        Map<String, String> env = env(Chart.render(Chart.set("emqx.authn.poolSize", 64, "emqx.authn.requestTimeout", "8s",
                "authService.overload.deadline", "3s", "pgbouncer.queryWaitTimeout", "2s")));
        Map<String, Object> authn = JSON.<List<Map<String, Object>>>readValue(env.get("EMQX_AUTHENTICATION"), new TypeReference<>() { }).get(0);
        assertEquals(64, authn.get("pool_size"));
        assertEquals("8s", authn.get("request_timeout"));
    }

    @Test
    void emqxIsAThreeNodeStatefulSetClusterDiscoveredThroughDnsSrvOnAHeadlessService() {
        StatefulSet sts = DEFAULTS.get(StatefulSet.class, Chart.name("emqx"));
        assertEquals(3, sts.getSpec().getReplicas());
        assertEquals("emqx/emqx:5.8.9", sts.getSpec().getTemplate().getSpec().getContainers().get(0).getImage());
        Service headless = DEFAULTS.get(Service.class, sts.getSpec().getServiceName());
        assertEquals("None", headless.getSpec().getClusterIP());
        assertTrue(headless.getSpec().getPublishNotReadyAddresses());
        Map<String, String> env = env(DEFAULTS);
        String domain = Chart.name("emqx-headless") + "." + Chart.NAMESPACE + ".svc.cluster.local";
        assertEquals("dns", env.get("EMQX_CLUSTER__DISCOVERY_STRATEGY"));
        assertEquals("srv", env.get("EMQX_CLUSTER__DNS__RECORD_TYPE"));
        assertEquals(domain, env.get("EMQX_CLUSTER__DNS__NAME"));
        assertEquals("$(POD_NAME)." + domain, env.get("EMQX_HOST"));
    }

    @Test
    void emqxRunsAsNonRootWithSecretsFromASecret() {
        Container c = DEFAULTS.get(StatefulSet.class, Chart.name("emqx")).getSpec().getTemplate().getSpec().getContainers().get(0);
        assertTrue(c.getSecurityContext().getRunAsNonRoot());
        assertFalse(c.getSecurityContext().getAllowPrivilegeEscalation());
        for (String secretEnv : List.of("EMQX_NODE__COOKIE", "EMQX_DASHBOARD__DEFAULT_PASSWORD")) {
            EnvVar var = c.getEnv().stream().filter(e -> e.getName().equals(secretEnv)).findFirst().orElseThrow();
            assertEquals(Chart.name("emqx"), var.getValueFrom().getSecretKeyRef().getName());
        }
    }

    @Test
    void switchedOffEmqxRendersNoBroker() {
        Chart.Rendered rendered = Chart.render(Chart.set("emqx.enabled", false));
        rendered.assertAbsent(StatefulSet.class, Chart.name("emqx"));
        rendered.assertAbsent(Service.class, Chart.name("emqx-headless"));
    }

    static Map<String, String> env(Chart.Rendered rendered) {
        return rendered.get(StatefulSet.class, Chart.name("emqx")).getSpec().getTemplate().getSpec().getContainers().get(0)
                .getEnv().stream().filter(e -> e.getValue() != null)
                .collect(Collectors.toMap(EnvVar::getName, EnvVar::getValue));
    }
}
