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
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.Service;
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
