package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicyIngressRule;

/**
 * Revocation reaches live sessions (registrationService.kicks): the chart bootstraps an API key into the EMQX it
 * deploys, hands its URL and key to registration-service, admits registration-service to EMQX's API port and no one
 * else, and keeps EMQX's node-wide authn cache off where the image has one.
 */
class KicksChartTest {

    private static final Chart.Rendered DEFAULTS = Chart.render(Chart.set("networkPolicy.metricsFrom", "null"));
    private static final String API_SECRET = Chart.name("emqx-api");

    private static Container emqx(Chart.Rendered rendered) {
        return rendered.get(StatefulSet.class, Chart.name("emqx")).getSpec().getTemplate().getSpec().getContainers().get(0);
    }

    @Test
    void registrationServiceKicksThroughTheChartsEmqxWithTheGeneratedKey() {
        // The dashboard's own ClusterIP Service, never the devices' Service, over HTTPS.
        assertEquals("https://" + Chart.name("emqx-dashboard") + "." + Chart.NAMESPACE + ".svc.cluster.local:18084",
                ServicesTest.env(DEFAULTS, "registration-service").get("IDENTITY_KICKS_EMQX_API_URL"));
        Map<String, String> refs = FastPathChartTest.secretRefs(ServicesTest.container(DEFAULTS, "registration-service"));
        assertEquals(API_SECRET + "/key", refs.get("IDENTITY_KICKS_EMQX_API_KEY"));
        assertEquals(API_SECRET + "/secret", refs.get("IDENTITY_KICKS_EMQX_API_SECRET"));
        Secret secret = DEFAULTS.get(Secret.class, API_SECRET);
        assertEquals("registration-service", PgBouncerTest.decode(secret, "key"));
        assertEquals("test-emqx-api-secret", PgBouncerTest.decode(secret, "secret"));
        // emqx_mgmt_auth.erl parse_bootstrap_line/2: "key:secret:role", one per line.
        assertEquals("registration-service:test-emqx-api-secret:administrator\n", PgBouncerTest.decode(secret, "bootstrap"));
        assertFalse(ServicesTest.env(DEFAULTS, "auth-service").containsKey("IDENTITY_KICKS_EMQX_API_URL"));
    }

    @Test
    void emqxLoadsTheKeyFromItsBootstrapFileMountedFromTheSecret() {
        Container c = emqx(DEFAULTS);
        Map<String, String> env = EmqxTest.env(DEFAULTS);
        String file = env.get("EMQX_API_KEY__BOOTSTRAP_FILE");
        assertEquals("/opt/emqx/api-key/bootstrap", file);
        String mount = c.getVolumeMounts().stream().filter(m -> m.getName().equals("api-key")).findFirst().orElseThrow()
                .getMountPath();
        assertEquals(file, mount + "/bootstrap");
        Volume volume = DEFAULTS.get(StatefulSet.class, Chart.name("emqx")).getSpec().getTemplate().getSpec().getVolumes()
                .stream().filter(v -> v.getName().equals("api-key")).findFirst().orElseThrow();
        assertEquals(API_SECRET, volume.getSecret().getSecretName());
        assertEquals("bootstrap", volume.getSecret().getItems().get(0).getKey());
        assertEquals(0440, volume.getSecret().getDefaultMode());
    }

    @Test
    void aNewApiSecretRestartsEmqxAndRegistrationService() {
        Chart.Rendered other = Chart.render(Chart.set("registrationService.kicks.apiSecret", "another-secret"));
        assertNotEquals(checksum(DEFAULTS.get(StatefulSet.class, Chart.name("emqx")).getSpec().getTemplate().getMetadata().getAnnotations()),
                checksum(other.get(StatefulSet.class, Chart.name("emqx")).getSpec().getTemplate().getMetadata().getAnnotations()));
        assertNotEquals(checksum(DEFAULTS.get(Deployment.class, Chart.name("registration-service")).getSpec().getTemplate().getMetadata().getAnnotations()),
                checksum(other.get(Deployment.class, Chart.name("registration-service")).getSpec().getTemplate().getMetadata().getAnnotations()));
    }

    private static String checksum(Map<String, String> annotations) {
        return annotations.get("checksum/secret");
    }

    @Test
    void onlyRegistrationServiceReachesEmqxsApiWhileMqttStaysOpenAndClusterPortsStayInside() {
        NetworkPolicy policy = DEFAULTS.get(NetworkPolicy.class, Chart.name("emqx"));
        assertEquals(NetworkPolicyTest.selector(StatefulSet.class, "emqx"), policy.getSpec().getPodSelector().getMatchLabels());
        List<NetworkPolicyIngressRule> rules = policy.getSpec().getIngress();
        NetworkPolicyIngressRule mqtt = rule(rules, 8883);
        assertTrue(mqtt.getFrom() == null || mqtt.getFrom().isEmpty(), "devices connect from anywhere");
        assertEquals(List.of(NetworkPolicyTest.selector(StatefulSet.class, "emqx")),
                rule(rules, 4370).getFrom().stream().map(p -> p.getPodSelector().getMatchLabels()).toList());
        NetworkPolicyIngressRule api = rule(rules, 18084);
        assertTrue(rules.stream().noneMatch(r -> r.getPorts().stream().anyMatch(p -> p.getPort().getIntVal() == 18083)),
                "the plain API port is off with TLS, so no rule opens it");
        assertEquals(List.of(NetworkPolicyTest.selector(Deployment.class, "registration-service")),
                api.getFrom().stream().map(p -> p.getPodSelector().getMatchLabels()).toList());
        assertEquals(1, api.getPorts().size(), "the API rule opens nothing else");
    }

    @Test
    void furtherApiClientsAreAdmittedThroughTheirPeers() {
        NetworkPolicy policy = Chart.render(Chart.set("networkPolicy.emqxApiFrom[0].namespaceSelector.matchLabels.team", "ops"))
                .get(NetworkPolicy.class, Chart.name("emqx"));
        assertEquals(Map.of("team", "ops"), rule(policy.getSpec().getIngress(), 18084).getFrom().get(1)
                .getNamespaceSelector().getMatchLabels());
    }

    private static NetworkPolicyIngressRule rule(List<NetworkPolicyIngressRule> rules, int port) {
        return rules.stream().filter(r -> r.getPorts().stream().anyMatch(p -> p.getPort().getIntVal() == port))
                .findFirst().orElseThrow(() -> new AssertionError("no rule for port " + port));
    }

    @Test
    void withKicksOffNothingIsBootstrappedNorPassed() {
        Chart.Rendered off = Chart.render(Chart.set("registrationService.kicks.enabled", false));
        off.assertAbsent(Secret.class, API_SECRET);
        assertFalse(EmqxTest.env(off).containsKey("EMQX_API_KEY__BOOTSTRAP_FILE"));
        assertFalse(ServicesTest.env(off, "registration-service").containsKey("IDENTITY_KICKS_EMQX_API_URL"));
        assertFalse(FastPathChartTest.secretRefs(ServicesTest.container(off, "registration-service"))
                .containsKey("IDENTITY_KICKS_EMQX_API_KEY"));
    }

    @Test
    void anEmqxOfYourOwnIsKickedWithItsUrlAndTheKeyFromYourSecret() {
        Chart.Rendered own = Chart.render(Chart.set("emqx.enabled", false,
                "registrationService.kicks.emqxApiUrl", "https://emqx.mqtt.svc:18084",
                "registrationService.kicks.existingSecret", "my-emqx-key"));
        assertEquals("https://emqx.mqtt.svc:18084",
                ServicesTest.env(own, "registration-service").get("IDENTITY_KICKS_EMQX_API_URL"));
        assertEquals("my-emqx-key/secret", FastPathChartTest.secretRefs(
                ServicesTest.container(own, "registration-service")).get("IDENTITY_KICKS_EMQX_API_SECRET"));
        own.assertAbsent(Secret.class, API_SECRET);
    }

    @Test
    void anEmqxUrlWithoutItsKeyIsRefusedNamingTheValue() {
        String refusal = Chart.refusal(Chart.set("emqx.enabled", false,
                "registrationService.kicks.emqxApiUrl", "http://emqx:18083"));
        assertTrue(refusal.contains("registrationService.kicks.existingSecret"), refusal);
    }

    @Test
    void theKickIsVerifiedAgainstTheCaOfEmqxsCertificateMountedFromItsSecret() {
        Map<String, String> env = ServicesTest.env(DEFAULTS, "registration-service");
        assertEquals("/etc/device-identity/emqx-api-ca/ca.crt", env.get("IDENTITY_KICKS_EMQX_API_CA_FILE"));
        Container registration = ServicesTest.container(DEFAULTS, "registration-service");
        String mount = registration.getVolumeMounts().stream().filter(m -> m.getName().equals("emqx-api-ca"))
                .findFirst().orElseThrow().getMountPath();
        assertEquals(env.get("IDENTITY_KICKS_EMQX_API_CA_FILE"), mount + "/ca.crt");
        Volume volume = DEFAULTS.get(Deployment.class, Chart.name("registration-service")).getSpec().getTemplate()
                .getSpec().getVolumes().stream().filter(v -> v.getName().equals("emqx-api-ca")).findFirst().orElseThrow();
        assertEquals(Chart.name("emqx-tls"), volume.getSecret().getSecretName());
        assertEquals(List.of("ca.crt"), volume.getSecret().getItems().stream().map(i -> i.getKey()).toList());
        // The name registration-service dials is one EMQX's certificate carries.
        assertTrue(TlsChartTest.dnsNames(DEFAULTS, "emqx").contains(
                Chart.name("emqx-dashboard") + "." + Chart.NAMESPACE + ".svc.cluster.local"));
    }

    @Test
    void aPlainHttpEmqxApiUrlIsRefusedWhileTlsIsOnNamingTheOptOut() {
        String refusal = Chart.refusal(Chart.set("emqx.enabled", false,
                "registrationService.kicks.emqxApiUrl", "http://emqx:18083",
                "registrationService.kicks.existingSecret", "my-emqx-key"));
        assertTrue(refusal.contains("registrationService.kicks.emqxApiUrl=http://emqx:18083"), refusal);
        assertTrue(refusal.contains("tls.plaintextAllowedBecause"), refusal);
        Chart.Rendered meshed = Chart.render(Chart.set("emqx.enabled", false,
                "registrationService.kicks.emqxApiUrl", "http://emqx:18083",
                "registrationService.kicks.existingSecret", "my-emqx-key",
                "tls.plaintextAllowedBecause", "service mesh in strict mTLS"));
        assertFalse(ServicesTest.env(meshed, "registration-service").containsKey("IDENTITY_KICKS_EMQX_API_CA_FILE"));
    }

    @Test
    void yourOwnEmqxsApiCaComesFromTheSecretYouName() {
        Chart.Rendered own = Chart.render(Chart.set("emqx.enabled", false,
                "registrationService.kicks.emqxApiUrl", "https://emqx.mqtt.svc:18084",
                "registrationService.kicks.existingSecret", "my-emqx-key",
                "registrationService.kicks.caSecret", "my-emqx-ca"));
        assertEquals("/etc/device-identity/emqx-api-ca/ca.crt",
                ServicesTest.env(own, "registration-service").get("IDENTITY_KICKS_EMQX_API_CA_FILE"));
        assertEquals("my-emqx-ca", own.get(Deployment.class, Chart.name("registration-service")).getSpec().getTemplate()
                .getSpec().getVolumes().stream().filter(v -> v.getName().equals("emqx-api-ca")).findFirst()
                .orElseThrow().getSecret().getSecretName());
    }

    @Test
    void noEmqxAndNoUrlMeansNoKicks() {
        Chart.Rendered none = Chart.render(Chart.set("emqx.enabled", false));
        assertFalse(ServicesTest.env(none, "registration-service").containsKey("IDENTITY_KICKS_EMQX_API_URL"));
    }

    @Test
    void anEmqxWithANodeCacheHasItOffAnd589HasNone() {
        assertFalse(EmqxTest.env(DEFAULTS).containsKey("EMQX_AUTHENTICATION_SETTINGS__NODE_CACHE__ENABLE"),
                "5.8.9 has no node cache (added in 5.9)");
        for (String tag : List.of("6.2.0", "v6.0.1", "5.10.4")) {
            assertEquals("false", EmqxTest.env(Chart.render(Chart.set("emqx.image.tag", tag)))
                    .get("EMQX_AUTHENTICATION_SETTINGS__NODE_CACHE__ENABLE"), tag);
        }
        assertFalse(EmqxTest.env(Chart.render(Chart.set("emqx.image.tag", "latest")))
                .containsKey("EMQX_AUTHENTICATION_SETTINGS__NODE_CACHE__ENABLE"), "a tag that is no version: documented");
    }

    @Test
    void authServiceBoundsSessionsWithTheConfiguredLife() {
        assertEquals("24h", ServicesTest.env(DEFAULTS, "auth-service").get("IDENTITY_AUTH_MAX_SESSION_LIFE"));
        assertEquals("0s", ServicesTest.env(Chart.render(Chart.set("authService.maxSessionLife", "0s")), "auth-service")
                .get("IDENTITY_AUTH_MAX_SESSION_LIFE"));
    }
}
