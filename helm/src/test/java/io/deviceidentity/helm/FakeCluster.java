package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.stream.Stream;

import com.marcnuri.helm.Helm;
import com.marcnuri.helm.TemplateCommand;

import io.fabric8.kubernetes.api.model.Secret;

/**
 * The chart keeps generated secrets across upgrades by looking up the release's existing Secrets (Helm's
 * {@code lookup}), which `helm template` in the tests cannot reach (see test-secrets.yaml). This renders a copy of
 * the chart in which that one lookup reads a file of Secrets instead: the Secrets of an earlier render (an upgrade)
 * or hand-made ones (a Secret edited with kubectl). Everything else is the chart as it is, rendered with its pure
 * defaults unless told otherwise; the lookup's own behaviour (Helm's) is not under test.
 */
final class FakeCluster {

    /** The one lookup in the chart (templates/_helpers.tpl, device-identity.generated). */
    static final String LOOKUP = "lookup \"v1\" \"Secret\" .root.Release.Namespace .secret";
    private static final String FILE = "fake-cluster/secrets.yaml";
    private static final String REPLACEMENT = "(index (.root.Files.Get \"" + FILE + "\" | fromYaml) .secret)";

    private final Path chart;

    private FakeCluster(Path chart) {
        this.chart = chart;
    }

    /** A cluster in which the release has no Secrets yet: a first install. */
    static FakeCluster empty(Path tempDir) {
        return holding(tempDir, List.of());
    }

    /** A cluster in which the release's namespace holds these Secrets. */
    static FakeCluster holding(Path tempDir, List<Secret> secrets) {
        try {
            Path chart = tempDir.resolve("chart-" + System.nanoTime()).resolve(Chart.DIR.getFileName());
            copy(Chart.DIR, chart);
            Path helpers = chart.resolve("templates/_helpers.tpl");
            String text = Files.readString(helpers);
            assertEquals(1, occurrences(text, LOOKUP), "the chart's Secret lookup moved: update FakeCluster.LOOKUP");
            Files.writeString(helpers, text.replace(LOOKUP, REPLACEMENT));
            try (Stream<Path> files = Files.walk(chart.resolve("templates"))) {
                for (Path f : files.filter(Files::isRegularFile).toList()) {
                    assertEquals(0, occurrences(Files.readString(f), "lookup "),
                            () -> f + " has a lookup FakeCluster does not replace");
                }
            }
            Path file = chart.resolve(FILE);
            Files.createDirectories(file.getParent());
            Files.writeString(file, yaml(secrets));
            return new FakeCluster(chart);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** Renders (pure defaults plus these values) and parses strictly. */
    Chart.Rendered render(Map<String, Object> sets) {
        return new Chart.Rendered(Chart.parseStrictly(template(sets).call()));
    }

    /** The message of the render failure. */
    String refusal(Map<String, Object> sets) {
        try {
            template(sets).call();
        } catch (IllegalStateException e) {
            return e.getMessage();
        }
        throw new AssertionError("the chart rendered: " + sets);
    }

    private TemplateCommand template(Map<String, Object> sets) {
        TemplateCommand command = new Helm(chart).template().withName(Chart.RELEASE).withNamespace(Chart.NAMESPACE)
                .withKubeVersion(Chart.KUBE_VERSION);
        for (Map.Entry<String, Object> e : sets.entrySet()) {
            command = command.set(e.getKey(), e.getValue());
        }
        return command;
    }

    /** name: {data: {key: base64}} for each Secret: what the replaced lookup indexes. */
    private static String yaml(List<Secret> secrets) {
        StringBuilder out = new StringBuilder("{}\n");
        if (!secrets.isEmpty()) {
            out.setLength(0);
        }
        for (Secret s : secrets) {
            out.append('"').append(s.getMetadata().getName()).append("\":\n  data:\n");
            for (Map.Entry<String, String> e : new TreeMap<>(s.getData()).entrySet()) {
                out.append("    \"").append(e.getKey()).append("\": \"").append(e.getValue()).append("\"\n");
            }
        }
        return out.toString();
    }

    private static int occurrences(String text, String part) {
        int n = 0;
        for (int i = text.indexOf(part); i >= 0; i = text.indexOf(part, i + 1)) {
            n++;
        }
        return n;
    }

    private static void copy(Path from, Path to) throws IOException {
        try (Stream<Path> paths = Files.walk(from)) {
            for (Path p : paths.toList()) {
                Path target = to.resolve(from.relativize(p).toString());
                if (Files.isDirectory(p)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(p, target);
                }
            }
        }
    }
}
