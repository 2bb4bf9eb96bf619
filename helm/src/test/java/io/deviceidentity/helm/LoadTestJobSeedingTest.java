package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.EnvVar;
import io.fabric8.kubernetes.api.model.Secret;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.batch.v1.Job;
import io.fabric8.kubernetes.api.model.networking.v1.NetworkPolicy;

/**
 * k8s/jobs/loadtest-job.yaml registers its own devices (no SQL inside the bundled PostgreSQL): its
 * seed-devices init container calls registration-service's API with the release's generated token, so it works with
 * the bundled or an external database alike. What it addresses must exist in the release it is applied to.
 */
class LoadTestJobSeedingTest {

    private static final JsonNode VALUES = values();
    private static final Job JOB = (Job) Chart.parseStrictly(Chart.read(Chart.REPO.resolve("k8s/jobs/loadtest-job.yaml"))).get(0);

    @Test
    void theDevicesAreRegisteredBeforeTheLoadRuns() {
        List<Container> init = JOB.getSpec().getTemplate().getSpec().getInitContainers();
        assertEquals(List.of("seed-devices", "loadtest"), init.stream().map(Container::getName).toList(),
                "init containers run in order: the devices first");
    }

    @Test
    void theSeedingAddressesTheReleasesRegistrationServiceAndTokenSecretWithBundledOrExternalDatabase() {
        Container seed = seed();
        URI url = URI.create(env(seed, "REGISTRATION_URL"));
        assertEquals("/v1/devices", url.getPath());
        EnvVar tokens = seed.getEnv().stream().filter(e -> e.getName().equals("REGISTRATION_TOKENS")).findFirst().orElseThrow();
        String secret = tokens.getValueFrom().getSecretKeyRef().getName();
        assertEquals("tokens", tokens.getValueFrom().getSecretKeyRef().getKey());
        for (Chart.Rendered release : List.of(
                Chart.render(Map.of(), Chart.DIR.resolve("ci/kind-values.yaml")),
                Chart.render(Map.of("postgresql.enabled", false, "tls.database.caSecret", "db-ca", "postgresql.external.host", "db.example.internal")))) {
            Service service = release.get(Service.class, url.getHost());
            assertTrue(service.getSpec().getPorts().stream().anyMatch(p -> p.getPort() == url.getPort()), url.toString());
            assertTrue(release.get(Secret.class, secret).getData().containsKey("tokens"), secret);
            // Admitted by registration-service's NetworkPolicy through the client label the pod carries.
            NetworkPolicy policy = release.get(NetworkPolicy.class, Chart.name("registration-service"));
            Map<String, String> labels = JOB.getSpec().getTemplate().getMetadata().getLabels();
            assertTrue(policy.getSpec().getIngress().get(0).getFrom().stream()
                    .anyMatch(peer -> peer.getPodSelector() != null
                            && labels.entrySet().containsAll(peer.getPodSelector().getMatchLabels().entrySet())),
                    "the Job's pod labels " + labels + " are not admitted by " + policy.getSpec().getIngress());
        }
    }

    @Test
    void theSeededDevicesAreTheOnesTheLoadGeneratorUses() {
        Container seed = seed();
        Container loadtest = JOB.getSpec().getTemplate().getSpec().getInitContainers().stream()
                .filter(c -> c.getName().equals("loadtest")).findFirst().orElseThrow();
        assertEquals(arg(loadtest, "--devices"), env(seed, "DEVICES"));
        assertEquals(arg(loadtest, "--device-prefix"), env(seed, "DEVICE_PREFIX"));
        assertEquals(arg(loadtest, "--shared-password"), env(seed, "SHARED_PASSWORD"));
        // The image the chart's own `helm test` uses (curl and a shell), at the same tag.
        assertEquals(VALUES.path("tests").path("image").path("repository").asText() + ":"
                + VALUES.path("tests").path("image").path("tag").asText(), seed.getImage());
    }

    private static JsonNode values() {
        try {
            return new ObjectMapper(new YAMLFactory()).readTree(Chart.DIR.resolve("values.yaml").toFile());
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static Container seed() {
        return JOB.getSpec().getTemplate().getSpec().getInitContainers().stream()
                .filter(c -> c.getName().equals("seed-devices")).findFirst().orElseThrow();
    }

    private static String env(Container c, String name) {
        return c.getEnv().stream().filter(e -> e.getName().equals(name)).map(EnvVar::getValue).findFirst()
                .orElseThrow(() -> new AssertionError(name + " not set on " + c.getName()));
    }

    private static String arg(Container c, String flag) {
        return c.getArgs().stream().filter(a -> a.startsWith(flag + "=")).map(a -> a.substring(flag.length() + 1))
                .findFirst().orElseThrow(() -> new AssertionError(flag + " not in " + c.getArgs()));
    }
}
