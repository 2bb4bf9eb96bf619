package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.marcnuri.helm.Helm;

import io.fabric8.kubernetes.api.model.Pod;

/**
 * The `helm test` Pod outlives its success, because k8s/kind.sh (and NOTES.txt, the chart's README) run
 * `helm test --logs`: Helm 3.17 deletes a hook with the hook-succeeded policy, and waits for it to be gone, before
 * it fetches the logs (pkg/action/hooks.go; helm/helm#9098), so a passing test would end in "unable to get pod logs".
 */
class HelmTestLogsTest {

    private static final String RENAMED_HOOK = "device-identity.test/hook";

    @Test
    void theTestPodIsATestHookThatASucceededRunDoesNotDelete() {
        Pod pod = testPod();
        Map<String, String> annotations = pod.getMetadata().getAnnotations();
        assertEquals("test", annotations.get(RENAMED_HOOK));
        List<String> policies = Arrays.stream(annotations.getOrDefault("helm.sh/hook-delete-policy", "").split(","))
                .map(String::strip).toList();
        assertFalse(policies.contains("hook-succeeded"),
                "helm test --logs cannot read a Pod that hook-succeeded deleted: " + policies);
        // The previous run's Pod is replaced, so a second `helm test` does not fail on "already exists".
        assertTrue(policies.contains("before-hook-creation"), policies.toString());
    }

    @Test
    void kindShReadsTheTestLogsTheWayThePolicyAllows() {
        String kindSh = Chart.read(Chart.REPO.resolve("k8s/kind.sh"));
        assertTrue(kindSh.contains("helm test \"$RELEASE\" --namespace \"$NAMESPACE\" --logs"), "k8s/kind.sh: helm test --logs");
    }

    /**
     * The rendered test hook. helm-java's `helm template` and its dry-run install leave hooks out, so the chart is
     * rendered from a copy whose test Pod has its helm.sh/hook annotation renamed: Helm then renders it like any
     * manifest, every other annotation (the delete policy) as the real chart has it.
     */
    private static Pod testPod() {
        Path copy = copyOfTheChartWithTheTestHookAsAManifest();
        String yaml = new Helm(copy).template().withName(Chart.RELEASE).withNamespace(Chart.NAMESPACE)
                .withKubeVersion(Chart.KUBE_VERSION).withValuesFile(Chart.TEST_SECRETS).call();
        List<Pod> pods = Chart.parseStrictly(yaml).stream().filter(Pod.class::isInstance).map(Pod.class::cast)
                .filter(pod -> pod.getMetadata().getName().equals(Chart.name("helm-test"))).toList();
        assertEquals(1, pods.size(), "the helm test Pod is not rendered");
        return pods.get(0);
    }

    private static Path copyOfTheChartWithTheTestHookAsAManifest() {
        try {
            Path copy = Files.createTempDirectory("chart-with-test-hook");
            Path target = copy.resolve(Chart.DIR.getFileName());
            try (Stream<Path> files = Files.walk(Chart.DIR)) {
                for (Path file : files.toList()) {
                    Path to = target.resolve(Chart.DIR.relativize(file).toString());
                    if (Files.isDirectory(file)) {
                        Files.createDirectories(to);
                    } else {
                        Files.copy(file, to);
                    }
                }
            }
            Path hook = target.resolve("templates/tests/authn-test.yaml");
            String text = Files.readString(hook);
            assertTrue(text.contains("helm.sh/hook: test"), "the test Pod is no longer a test hook");
            Files.writeString(hook, text.replace("helm.sh/hook: test", RENAMED_HOOK + ": test"));
            return target;
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
