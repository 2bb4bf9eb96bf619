package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.KubernetesResource;
import io.fabric8.kubernetes.client.utils.KubernetesSerialization;

/**
 * Renders the chart with real Helm (helm-java) and parses the result with the fabric8 model. Every test goes
 * through here, so every rendered manifest is checked for unknown fields.
 */
final class Chart {

    static final String RELEASE = "device-identity";
    static final String NAMESPACE = "identity";
    static final Path DIR = Paths.get(System.getProperty("chart.dir", "device-identity")).toAbsolutePath().normalize();
    static final Path REPO = Paths.get(System.getProperty("repo.root", "..")).toAbsolutePath().normalize();
    /** Kubernetes version rendered against (Helm's offline default is 1.20, below the chart's kubeVersion). */
    static final String KUBE_VERSION = "v1.31.0";
    static final KubernetesSerialization SERIALIZATION = new KubernetesSerialization();

    private Chart() {
    }

    static Helm helm() {
        return new Helm(DIR);
    }

    /** Values to pass with --set, in order. */
    static Map<String, Object> set(Object... keyValues) {
        Map<String, Object> values = new LinkedHashMap<>();
        for (int i = 0; i < keyValues.length; i += 2) {
            values.put((String) keyValues[i], keyValues[i + 1]);
        }
        return values;
    }

    /** Filled secrets, so that `helm template` never needs the cluster lookup (see the file's comment). */
    static final Path TEST_SECRETS = resource("test-secrets.yaml");

    static Path resource(String name) {
        try {
            return Paths.get(Chart.class.getClassLoader().getResource(name).toURI());
        } catch (java.net.URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    static TemplateCommand template(Map<String, Object> sets, Path... valuesFiles) {
        TemplateCommand command = helm().template().withName(RELEASE).withNamespace(NAMESPACE)
                .withKubeVersion(KUBE_VERSION).withValuesFile(TEST_SECRETS);
        for (Path file : valuesFiles) {
            command = command.withValuesFile(file);
        }
        for (Map.Entry<String, Object> e : sets.entrySet()) {
            command = command.set(e.getKey(), e.getValue());
        }
        return command;
    }

    static String renderYaml(Map<String, Object> sets, Path... valuesFiles) {
        return template(sets, valuesFiles).call();
    }

    /** Renders and parses strictly: unknown fields anywhere fail the test. */
    static Rendered render(Map<String, Object> sets, Path... valuesFiles) {
        return new Rendered(parseStrictly(renderYaml(sets, valuesFiles)));
    }

    static Rendered render() {
        return render(Map.of());
    }

    /** The message of the render failure; fails the test if the chart renders. */
    static String refusal(Map<String, Object> sets) {
        IllegalStateException e = assertThrows(IllegalStateException.class, () -> renderYaml(sets),
                "the chart rendered although the values break an invariant: " + sets);
        return e.getMessage();
    }

    static List<HasMetadata> parseStrictly(String yaml) {
        List<HasMetadata> resources = new ArrayList<>();
        for (String document : yaml.split("(?m)^---\\s*$")) {
            if (document.lines().allMatch(l -> l.isBlank() || l.trim().startsWith("#"))) {
                continue;
            }
            Object parsed = SERIALIZATION.unmarshal(document);
            if (!(parsed instanceof HasMetadata resource)) {
                fail("not a Kubernetes resource: " + document);
                return resources;
            }
            StrictModel.assertNoUnknownFields(resource);
            resources.add(resource);
        }
        return resources;
    }

    static String read(Path path) {
        try {
            return Files.readString(path);
        } catch (java.io.IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    /** A rendered release. */
    record Rendered(List<HasMetadata> resources) {

        <T extends HasMetadata> List<T> all(Class<T> type) {
            return resources.stream().filter(type::isInstance).map(type::cast).toList();
        }

        <T extends HasMetadata> Optional<T> find(Class<T> type, String name) {
            return all(type).stream().filter(r -> r.getMetadata().getName().equals(name)).findFirst();
        }

        <T extends HasMetadata> T get(Class<T> type, String name) {
            Optional<T> found = find(type, name);
            assertNotNull(found.orElse(null), () -> type.getSimpleName() + " " + name + " is not rendered; have "
                    + resources.stream().map(r -> r.getKind() + "/" + r.getMetadata().getName()).toList());
            return found.get();
        }

        void assertAbsent(Class<? extends KubernetesResource> type, String name) {
            assertEquals(List.of(), resources.stream().filter(type::isInstance)
                    .filter(r -> r.getMetadata().getName().equals(name)).toList());
        }
    }

    /** The name of a component's objects in the test release. */
    static String name(String component) {
        return RELEASE + "-" + component;
    }
}
