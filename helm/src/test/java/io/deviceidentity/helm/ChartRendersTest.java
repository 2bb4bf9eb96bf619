package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
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

import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.PodTemplateSpec;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;
import io.fabric8.kubernetes.api.model.policy.v1.PodDisruptionBudget;

/** The chart renders with the defaults and with every value set in ci/, and what it renders is consistent. */
class ChartRendersTest {

    static Stream<Path> valueSets() throws IOException {
        try (Stream<Path> files = Files.list(Chart.DIR.resolve("ci"))) {
            return files.filter(f -> f.toString().endsWith(".yaml")).sorted().toList().stream();
        }
    }

    @Test
    void defaultValuesRenderTheWholeChainAndParseStrictly() {
        Chart.Rendered rendered = Chart.render();
        for (String component : List.of("auth-service", "registration-service", "pgbouncer")) {
            rendered.get(Deployment.class, Chart.name(component));
            rendered.get(Service.class, Chart.name(component));
        }
        rendered.get(StatefulSet.class, Chart.name("postgresql"));
        rendered.get(StatefulSet.class, Chart.name("emqx"));
        rendered.get(Service.class, Chart.name("emqx-headless"));
    }

    @ParameterizedTest
    @MethodSource("valueSets")
    void everyCiValueSetRendersAndParsesStrictly(Path valuesFile) {
        Chart.Rendered rendered = Chart.render(Map.of(), valuesFile);
        assertFalse(rendered.resources().isEmpty(), valuesFile::toString);
        assertSelectorsAndTargetsAreConsistent(rendered);
    }

    @Test
    void optionalPartsRenderAndParseStrictlyWhenSwitchedOn() {
        Chart.Rendered rendered = Chart.render(Chart.set("pgbouncer.exporter.enabled", true,
                "metrics.serviceMonitor.enabled", true, "metrics.grafanaDashboard.enabled", true,
                "postgresql.persistence.enabled", true, "emqx.persistence.enabled", true));
        assertSelectorsAndTargetsAreConsistent(rendered);
        assertEquals(3, rendered.resources().stream().filter(r -> r.getKind().equals("ServiceMonitor")).count());
    }

    @Test
    void namesAreUniquePerKind() {
        Set<String> seen = new HashSet<>();
        for (HasMetadata r : Chart.render().resources()) {
            assertTrue(seen.add(r.getKind() + "/" + r.getMetadata().getName()), "duplicate " + r.getKind() + " " + r.getMetadata().getName());
        }
    }

    /** What fabric8 cannot check: selectors select the pods, HPAs and PDBs point at what exists. */
    static void assertSelectorsAndTargetsAreConsistent(Chart.Rendered rendered) {
        for (Deployment d : rendered.all(Deployment.class)) {
            assertSelects(d.getSpec().getSelector().getMatchLabels(), d.getSpec().getTemplate(), d.getMetadata().getName());
        }
        for (StatefulSet s : rendered.all(StatefulSet.class)) {
            assertSelects(s.getSpec().getSelector().getMatchLabels(), s.getSpec().getTemplate(), s.getMetadata().getName());
            rendered.get(Service.class, s.getSpec().getServiceName());
        }
        List<Map<String, String>> podLabels = Stream.concat(
                rendered.all(Deployment.class).stream().map(d -> d.getSpec().getTemplate().getMetadata().getLabels()),
                rendered.all(StatefulSet.class).stream().map(s -> s.getSpec().getTemplate().getMetadata().getLabels())).toList();
        for (Service s : rendered.all(Service.class)) {
            assertTrue(podLabels.stream().anyMatch(l -> l.entrySet().containsAll(s.getSpec().getSelector().entrySet())),
                    "Service " + s.getMetadata().getName() + " selects no pod");
        }
        for (PodDisruptionBudget p : rendered.all(PodDisruptionBudget.class)) {
            assertTrue(podLabels.stream().anyMatch(l -> l.entrySet().containsAll(p.getSpec().getSelector().getMatchLabels().entrySet())),
                    "PDB " + p.getMetadata().getName() + " selects no pod");
        }
        for (HorizontalPodAutoscaler h : rendered.all(HorizontalPodAutoscaler.class)) {
            assertEquals("Deployment", h.getSpec().getScaleTargetRef().getKind());
            rendered.get(Deployment.class, h.getSpec().getScaleTargetRef().getName());
        }
    }

    private static void assertSelects(Map<String, String> selector, PodTemplateSpec template, String owner) {
        assertTrue(template.getMetadata().getLabels().entrySet().containsAll(selector.entrySet()),
                owner + ": selector " + selector + " does not match its pod labels");
    }
}
