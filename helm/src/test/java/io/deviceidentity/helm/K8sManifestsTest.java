package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.MethodSource;

import com.fasterxml.jackson.core.type.TypeReference;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.GenericKubernetesResource;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.SecretVolumeSource;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.Volume;
import io.fabric8.kubernetes.api.model.VolumeMount;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.batch.v1.Job;

/** The manifests in k8s/: they parse strictly and fit the chart they are run against (release device-identity). */
class K8sManifestsTest {

    private static final Path K8S = Chart.REPO.resolve("k8s");
    private static final Chart.Rendered KIND_RELEASE = Chart.render(Map.of(), Chart.DIR.resolve("ci/kind-values.yaml"));

    static Stream<Path> jobManifests() throws IOException {
        try (Stream<Path> files = Files.list(K8S.resolve("jobs"))) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList().stream();
        }
    }

    @ParameterizedTest
    @MethodSource("jobManifests")
    void jobManifestsParseStrictlyAsJobs(Path file) {
        List<HasMetadata> resources = Chart.parseStrictly(Chart.read(file));
        assertEquals(1, resources.size());
        assertTrue(resources.get(0) instanceof Job, file + " is not a batch/v1 Job");
    }

    @Test
    void loadTestJobCallsAuthServiceLikeEmqxAndIsAdmittedByTheNetworkPolicy() {
        Job job = job("loadtest-job.yaml");
        Map<String, String> labels = job.getSpec().getTemplate().getMetadata().getLabels();
        assertEquals("true", labels.get(NetworkPolicyTest.AUTHN_CLIENT));
        Container loadtest = job.getSpec().getTemplate().getSpec().getInitContainers().stream()
                .filter(c -> c.getName().equals("loadtest")).findFirst().orElseThrow();
        assertEquals("device-identity/loadtest:0.1.0", loadtest.getImage());
        assertEquals("run", loadtest.getArgs().get(0), "the load generator's run command");
        URI authn = URI.create(arg(loadtest, "--url"));
        assertServiceExists(authn);
        assertEquals("/mqtt/authn", authn.getPath());
        // The tool refuses non-loopback targets unless this names the intended host.
        assertEquals("LOADTEST_ALLOW_HOST", loadtest.getEnv().get(0).getName());
        assertEquals(authn.getHost(), loadtest.getEnv().get(0).getValue());
        // The EMQX it imitates is the one the chart renders with the kind values: every node's authn pool, at the
        // rendered pipelining and request timeout.
        Map<String, Object> emqx = renderedAuthenticator();
        int nodes = KIND_RELEASE.get(StatefulSet.class, Chart.name("emqx")).getSpec().getReplicas();
        assertEquals(String.valueOf(emqx.get("enable_pipelining")), arg(loadtest, "--pipelining"));
        assertEquals(emqx.get("request_timeout"), arg(loadtest, "--request-timeout"));
        assertEquals(String.valueOf(nodes * ((Number) emqx.get("pool_size")).intValue()), arg(loadtest, "--pool-size"),
                nodes + " EMQX nodes x pool_size " + emqx.get("pool_size"));
        assertEquals("/reports", arg(loadtest, "--out"));
        assertEquals(0, job.getSpec().getBackoffLimit(), "a failed load test is reported, not retried");
    }

    @Test
    void emqttBenchPodsConnectDistinctClientIdRanges() {
        Job job = job("emqtt-bench-conn-job.yaml");
        assertEquals("Indexed", job.getSpec().getCompletionMode());
        int pods = job.getSpec().getCompletions();
        assertEquals(pods, job.getSpec().getParallelism());
        Container bench = job.getSpec().getTemplate().getSpec().getContainers().get(0);
        assertTrue(bench.getImage().matches("emqx/emqtt-bench:\\d+\\.\\d+\\.\\d+"), "pinned: " + bench.getImage());
        String script = bench.getArgs().get(0);
        assertTrue(script.contains("start=$((JOB_COMPLETION_INDEX * CLIENTS_PER_POD))"), script);
        assertTrue(script.contains("-c \"$CLIENTS_PER_POD\""), script);
        assertTrue(script.contains("-n \"$start\""), script);
        int perPod = Integer.parseInt(env(bench, "CLIENTS_PER_POD"));
        Set<Integer> ids = new HashSet<>();
        for (int index = 0; index < pods; index++) {
            for (int n = index * perPod + 1; n <= (index + 1) * perPod; n++) {
                assertTrue(ids.add(n), "client id bench-" + n + " used by two pods");
            }
        }
        assertTrue(KIND_RELEASE.find(Service.class, env(bench, "EMQX_HOST")).isPresent(), "no Service " + env(bench, "EMQX_HOST"));
    }

    /**
     * emqtt-bench 0.6.2 loses a device whose first CONNECT is refused whatever --num-retry-connect says, and a retry
     * shuts the new connection down (the Job's comment): no retries; emqtt's reconnect timer serves connected devices.
     * Its Erlang VM takes ~416 MiB idle, so the memory limit must leave headroom above that.
     */
    @Test
    void emqttBenchMakesNoImmediateRetriesAndHasMemoryAboveItsIdleVm() {
        Container bench = job("emqtt-bench-conn-job.yaml").getSpec().getTemplate().getSpec().getContainers().get(0);
        String script = bench.getArgs().get(0);
        assertTrue(script.contains("--num-retry-connect 0 "), script);
        assertTrue(script.contains("--reconnect \"$RECONNECTS\""), script);
        long idleVm = 416L << 20;
        long request = Quantity.getAmountInBytes(bench.getResources().getRequests().get("memory")).longValue();
        long limit = Quantity.getAmountInBytes(bench.getResources().getLimits().get("memory")).longValue();
        assertTrue(request >= idleVm, "request " + request + " under the idle VM");
        assertTrue(limit >= idleVm * 3 / 2, "limit " + limit + " leaves under half the idle VM as headroom");
    }

    @Test
    void kindClusterConfigIsAKindClusterWithWorkersForAMultiNodeEmqx() throws IOException {
        JsonNode config = new ObjectMapper(new YAMLFactory()).readTree(K8S.resolve("kind-cluster.yaml").toFile());
        assertEquals("kind.x-k8s.io/v1alpha4", config.get("apiVersion").asText());
        assertEquals("Cluster", config.get("kind").asText());
        Set<String> fields = new HashSet<>();
        config.fieldNames().forEachRemaining(fields::add);
        assertTrue(Set.of("kind", "apiVersion", "name", "nodes", "networking", "featureGates").containsAll(fields), "unknown fields " + fields);
        long workers = 0;
        for (JsonNode node : config.get("nodes")) {
            assertTrue(Set.of("control-plane", "worker").contains(node.get("role").asText()));
            workers += node.get("role").asText().equals("worker") ? 1 : 0;
        }
        assertTrue(workers >= 2, "EMQX nodes should be able to land on different Kubernetes nodes");
    }

    @Test
    void kindScriptInstallsTheReleaseTheJobsAddress() {
        String script = Chart.read(K8S.resolve("kind.sh"));
        assertTrue(script.contains(": \"${CLUSTER_TOOL:=kind}\" \"${CLUSTER:=device-identity}\" \"${NAMESPACE:=identity}\" \"${RELEASE:=" + Chart.RELEASE + "}\""));
        assertTrue(script.contains("helm/device-identity/ci/kind-values.yaml"));
        // The services' Quarkus Dockerfiles (Dockerfile.jvm or Dockerfile.native, IMAGE_VARIANT) and the load
        // generator's, written by their modules.
        assertTrue(script.contains("\"$ROOT/$1/src/main/docker/Dockerfile.$IMAGE_VARIANT\""));
        assertTrue(script.contains(": \"${IMAGE_VARIANT:=jvm}\""), "JVM images by default");
        assertTrue(script.contains("\"$ROOT/loadtest/Dockerfile\""));
        assertFalse(script.contains(":latest"), "images are pinned");
    }

    /**
     * The kind release keeps the chart's TLS defaults: no opt-out in ci/kind-values.yaml, the services
     * HTTPS only, cert-manager Certificates from the chart's own CA, MQTT over TLS on 8883 and no plaintext listener,
     * and mutual TLS between EMQX and auth-service (emqx.clientCertificate): auth-service requires a client certificate,
     * which the load-test Job presents as EMQX does.
     */
    @Test
    void theKindReleaseRendersTlsOnWithoutAPlaintextListener() throws IOException {
        JsonNode values = new ObjectMapper(new YAMLFactory()).readTree(Chart.DIR.resolve("ci/kind-values.yaml").toFile());
        assertTrue(values.path("tls").isMissingNode(), "ci/kind-values.yaml overrides tls.*: " + values.path("tls"));
        assertTrue(values.path("emqx").path("listeners").path("plaintext").isMissingNode(),
                "ci/kind-values.yaml sets emqx.listeners.plaintext");
        assertTrue(values.path("emqx").path("clientCertificate").isMissingNode(),
                "ci/kind-values.yaml overrides emqx.clientCertificate (mutual TLS)");

        for (String service : List.of("auth-service", "registration-service")) {
            assertEquals("true", ServicesTest.env(KIND_RELEASE, service).get("IDENTITY_TLS_ENABLED"), service);
        }
        assertEquals("required", ServicesTest.env(KIND_RELEASE, "auth-service").get("IDENTITY_TLS_CLIENT_AUTH"),
                "auth-service must require EMQX's client certificate");
        assertEquals(List.of("digital signature", "key encipherment", "client auth"),
                spec(certificate(Chart.name("emqx-client-tls"))).get("usages"));
        Map<String, String> emqx = EmqxTest.env(KIND_RELEASE);
        assertEquals("false", emqx.get("EMQX_LISTENERS__TCP__DEFAULT__ENABLE"), "MQTT on 1883 must be off");
        assertEquals("false", emqx.get("EMQX_LISTENERS__WS__DEFAULT__ENABLE"), "WebSocket on 8083 must be off");
        assertEquals(Set.of(8883, 8084), ports(KIND_RELEASE.get(Service.class, Chart.name("emqx"))));
        Map<String, Object> authenticator = renderedAuthenticator();
        assertTrue(String.valueOf(authenticator.get("url")).startsWith("https://"), authenticator.toString());
        @SuppressWarnings("unchecked")
        Map<String, Object> ssl = (Map<String, Object>) authenticator.get("ssl");
        assertEquals(true, ssl.get("enable"));
        assertEquals("verify_peer", ssl.get("verify"));
        for (String component : List.of("ca", "auth-service", "registration-service", "pgbouncer", "emqx")) {
            assertTrue(certificate(Chart.name(component + ("ca".equals(component) ? "" : "-tls"))) != null, component);
        }
        assertEquals(Map.of("name", Chart.name("ca"), "kind", "Issuer", "group", "cert-manager.io"),
                spec(certificate(Chart.name("emqx-tls"))).get("issuerRef"), "the chart's own CA");
    }

    /**
     * Every TLS client of k8s/jobs/ dials a port the kind release serves over TLS, for a host name the server's
     * certificate names (they all check it, but emqtt-bench, which cannot), and mounts only the ca.crt of a Secret one
     * of the release's Certificates writes; the load generator, which auth-service asks for a certificate, also EMQX's
     * client certificate and key.
     */
    @Test
    void theJobsSpeakTlsToNamesAndPortsTheKindReleaseCertifies() {
        // The load generator: auth-service over HTTPS, checked against the CA of auth-service's certificate.
        Container loadtest = job("loadtest-job.yaml").getSpec().getTemplate().getSpec().getInitContainers().stream()
                .filter(c -> c.getName().equals("loadtest")).findFirst().orElseThrow();
        URI authn = URI.create(arg(loadtest, "--url"));
        assertEquals("https", authn.getScheme());
        assertTrue(dnsNames(Chart.name("auth-service-tls")).contains(authn.getHost()), authn.getHost());
        assertCaOf(job("loadtest-job.yaml"), loadtest, arg(loadtest, "--ca-file"), Chart.name("auth-service-tls"));
        assertClientCertificateOf(job("loadtest-job.yaml"), loadtest, arg(loadtest, "--client-cert"),
                arg(loadtest, "--client-key"), Chart.name("emqx-client-tls"));

        // The QoS 2 probe: each EMQX pod by its headless name on 8883, checked against the CA of EMQX's certificate.
        Job probeJob = job("qos2-probe-job.yaml");
        Container probe = probeJob.getSpec().getTemplate().getSpec().getContainers().get(0);
        Service headless = KIND_RELEASE.get(Service.class, Chart.name("emqx-headless"));
        int replicas = KIND_RELEASE.get(StatefulSet.class, Chart.name("emqx")).getSpec().getReplicas();
        for (String flag : List.of("--broker-a", "--broker-b", "--subscriber-broker")) {
            String broker = arg(probe, flag);
            String host = broker.substring(0, broker.lastIndexOf(':'));
            int port = Integer.parseInt(broker.substring(broker.lastIndexOf(':') + 1));
            assertEquals(8883, port, flag);
            assertTrue(ports(headless).contains(port), flag + ": the headless Service has no port " + port);
            assertTrue(host.matches(Chart.name("emqx") + "-\\d+\\." + headless.getMetadata().getName()), host);
            int pod = Integer.parseInt(host.substring(Chart.name("emqx").length() + 1, host.indexOf('.')));
            assertTrue(pod < replicas, host + ": the kind release runs " + replicas + " EMQX pods");
            assertTrue(dnsNames(Chart.name("emqx-tls")).contains(host), host + " is not in EMQX's certificate");
        }
        assertCaOf(probeJob, probe, arg(probe, "--ca-file"), Chart.name("emqx-tls"));
        URI registration = URI.create(arg(probe, "--register-url"));
        assertEquals("https", registration.getScheme());
        assertTrue(dnsNames(Chart.name("registration-service-tls")).contains(registration.getHost()));
        assertCaOf(probeJob, probe, arg(probe, "--register-ca-file"), Chart.name("registration-service-tls"));

        // mosquitto_sub: the device Service on 8883, checked against the CA of EMQX's certificate.
        Job sessionJob = job("mqtt-session-job.yaml");
        Container sub = sessionJob.getSpec().getTemplate().getSpec().getContainers().get(0);
        List<String> args = sub.getArgs();
        String host = args.get(args.indexOf("-h") + 1);
        assertEquals("8883", args.get(args.indexOf("-p") + 1));
        assertTrue(ports(KIND_RELEASE.get(Service.class, host)).contains(8883), host);
        assertTrue(dnsNames(Chart.name("emqx-tls")).contains(host), host + " is not in EMQX's certificate");
        assertFalse(args.contains("--insecure"), "mosquitto_sub must check the host name");
        assertCaOf(sessionJob, sub, args.get(args.indexOf("--cafile") + 1), Chart.name("emqx-tls"));

        // emqtt-bench: the device Service on 8883 over TLS (it verifies nothing: the Job's comment).
        Container bench = job("emqtt-bench-conn-job.yaml").getSpec().getTemplate().getSpec().getContainers().get(0);
        String script = bench.getArgs().get(0);
        assertTrue(script.contains("-h \"$EMQX_HOST\" -p 8883 --ssl "), script);
        assertTrue(ports(KIND_RELEASE.get(Service.class, env(bench, "EMQX_HOST"))).contains(8883));
    }

    /** FILE is the ca.crt of SECRET, mounted read-only into the container, and a Certificate of the release writes SECRET. */
    private static void assertCaOf(Job job, Container container, String file, String secret) {
        Path path = Path.of(file);
        assertEquals("ca.crt", path.getFileName().toString(), file);
        VolumeMount mount = container.getVolumeMounts().stream()
                .filter(m -> m.getMountPath().equals(path.getParent().toString())).findFirst()
                .orElseThrow(() -> new AssertionError(container.getName() + " mounts nothing at " + path.getParent()));
        assertTrue(Boolean.TRUE.equals(mount.getReadOnly()), mount.toString());
        assertSecretOfRelease(job, mount.getName(), secret);
    }

    /**
     * CERT and KEY are tls.crt and tls.key of SECRET, a client certificate the release's Certificates write, mounted
     * read-only from one volume whose files only the pod's group (fsGroup) can read.
     */
    private static void assertClientCertificateOf(Job job, Container container, String cert, String key, String secret) {
        Path certPath = Path.of(cert);
        Path keyPath = Path.of(key);
        assertEquals("tls.crt", certPath.getFileName().toString(), cert);
        assertEquals("tls.key", keyPath.getFileName().toString(), key);
        assertEquals(certPath.getParent(), keyPath.getParent(), "one volume holds both");
        VolumeMount mount = container.getVolumeMounts().stream()
                .filter(m -> m.getMountPath().equals(certPath.getParent().toString())).findFirst()
                .orElseThrow(() -> new AssertionError(container.getName() + " mounts nothing at " + certPath.getParent()));
        assertTrue(Boolean.TRUE.equals(mount.getReadOnly()), mount.toString());
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        SecretVolumeSource source = pod.getVolumes().stream().filter(v -> v.getName().equals(mount.getName()))
                .findFirst().orElseThrow().getSecret();
        assertEquals(secret, source.getSecretName(), mount.getName());
        assertEquals(Set.of("tls.crt", "tls.key"), Set.copyOf(source.getItems().stream().map(i -> i.getKey()).toList()));
        source.getItems().forEach(item -> assertEquals(item.getKey(), item.getPath(), "mounted under its own name"));
        assertEquals(0440, source.getDefaultMode(), "the key is for the pod's group only");
        Long group = pod.getSecurityContext().getFsGroup();
        assertEquals(group, pod.getSecurityContext().getRunAsGroup(), "the fsGroup that owns the files is the pod's group");
        @SuppressWarnings("unchecked")
        List<String> usages = (List<String>) spec(certificate(secret)).get("usages");
        assertTrue(usages.contains("client auth"), secret + " is not a client certificate: " + usages);
    }

    private static void assertSecretOfRelease(Job job, String volumeName, String secret) {
        PodSpec pod = job.getSpec().getTemplate().getSpec();
        Volume volume = pod.getVolumes().stream().filter(v -> v.getName().equals(volumeName)).findFirst().orElseThrow();
        SecretVolumeSource source = volume.getSecret();
        assertEquals(secret, source.getSecretName(), volumeName);
        assertEquals(List.of("ca.crt"), source.getItems().stream().map(i -> i.getKey()).toList(), "the CA only");
        assertTrue(certificate(secret) != null);
    }

    /** The kind release's cert-manager Certificate that writes SECRET. */
    private static GenericKubernetesResource certificate(String secret) {
        return KIND_RELEASE.all(GenericKubernetesResource.class).stream()
                .filter(r -> r.getApiVersion().equals("cert-manager.io/v1") && r.getKind().equals("Certificate"))
                .filter(r -> secret.equals(spec(r).get("secretName"))).findFirst()
                .orElseThrow(() -> new AssertionError("no Certificate of the kind release writes Secret " + secret));
    }

    @SuppressWarnings("unchecked")
    private static List<String> dnsNames(String secret) {
        return (List<String>) spec(certificate(secret)).getOrDefault("dnsNames", List.of());
    }

    @SuppressWarnings("unchecked")
    private static Map<String, Object> spec(GenericKubernetesResource resource) {
        return (Map<String, Object>) resource.getAdditionalProperties().get("spec");
    }

    private static Set<Integer> ports(Service service) {
        Set<Integer> ports = new HashSet<>();
        service.getSpec().getPorts().forEach(p -> ports.add(p.getPort()));
        return ports;
    }

    /** The EMQX authenticator the chart renders for kind (EMQX_AUTHENTICATION, a JSON list of one). */
    private static Map<String, Object> renderedAuthenticator() {
        String chain = EmqxTest.env(KIND_RELEASE).get("EMQX_AUTHENTICATION");
        try {
            return new ObjectMapper().readValue(chain, new TypeReference<List<Map<String, Object>>>() { }).get(0);
        } catch (IOException e) {
            throw new AssertionError("EMQX_AUTHENTICATION is not JSON: " + chain, e);
        }
    }

    private static Job job(String file) {
        return (Job) Chart.parseStrictly(Chart.read(K8S.resolve("jobs").resolve(file))).get(0);
    }

    private static String arg(Container c, String flag) {
        return c.getArgs().stream().filter(a -> a.startsWith(flag + "=")).map(a -> a.substring(flag.length() + 1))
                .findFirst().orElseThrow(() -> new AssertionError(flag + " not in " + c.getArgs()));
    }

    private static String env(Container c, String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).map(EnvVar::getValue).findFirst()
                .orElseThrow(() -> new AssertionError(name + " not set"));
    }

    /** The URL's host is a Service of the release, on one of its ports. */
    private static void assertServiceExists(URI url) {
        Service service = KIND_RELEASE.get(Service.class, url.getHost());
        assertTrue(service.getSpec().getPorts().stream().anyMatch(p -> p.getPort() == url.getPort()), url.toString());
    }
}
