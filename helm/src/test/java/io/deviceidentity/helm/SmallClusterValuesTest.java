package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.PodSpec;
import io.fabric8.kubernetes.api.model.Quantity;
import io.fabric8.kubernetes.api.model.apps.Deployment;
import io.fabric8.kubernetes.api.model.apps.StatefulSet;
import io.fabric8.kubernetes.api.model.autoscaling.v2.HorizontalPodAutoscaler;

/**
 * ci/small-cluster-values.yaml fits a 2-CPU minikube (docs/kubernetes.md, "minikube"): its CPU requests at the HPA minimum stay
 * below one CPU, and it pulls images (IfNotPresent), so loaded images and a registry both work.
 */
class SmallClusterValuesTest {

    private static final Path SMALL = Chart.DIR.resolve("ci/small-cluster-values.yaml");

    @Test
    void cpuRequestsAtTheMinimumStayBelowOneCpu() {
        List<String> parts = new ArrayList<>();
        double small = cpuRequests(Chart.render(Map.of(), SMALL), parts);
        assertTrue(small < 1.0, () -> "CPU requests " + small + ": " + parts);
        double defaults = cpuRequests(Chart.render(), new ArrayList<>());
        assertTrue(defaults > 4, "the defaults (" + defaults + " CPUs) no longer need a large cluster;"
                + " update the values file's comment and docs/kubernetes.md \"minikube\"");
    }

    /** CPU requests of every pod at the minimum replica count (an HPA's minReplicas where one manages it). */
    private static double cpuRequests(Chart.Rendered rendered, List<String> parts) {
        double total = 0;
        for (Deployment d : rendered.all(Deployment.class)) {
            Integer replicas = d.getSpec().getReplicas();
            if (replicas == null) {
                replicas = rendered.all(HorizontalPodAutoscaler.class).stream()
                        .filter(h -> h.getSpec().getScaleTargetRef().getName().equals(d.getMetadata().getName()))
                        .map(h -> h.getSpec().getMinReplicas()).findFirst().orElse(1);
            }
            double cpu = replicas * cpu(d.getSpec().getTemplate().getSpec());
            parts.add(d.getMetadata().getName() + "=" + cpu);
            total += cpu;
        }
        for (StatefulSet s : rendered.all(StatefulSet.class)) {
            double cpu = replicas(s.getSpec().getReplicas()) * cpu(s.getSpec().getTemplate().getSpec());
            parts.add(s.getMetadata().getName() + "=" + cpu);
            total += cpu;
        }
        return total;
    }

    @Test
    void imagesAreNeverForcedToBeLocal() {
        String yaml = Chart.renderYaml(Map.of(), SMALL);
        assertTrue(!yaml.contains("imagePullPolicy: Never"), "small-cluster values must work with a registry too");
    }

    private static int replicas(Integer replicas) {
        return replicas == null ? 1 : replicas;
    }

    private static double cpu(PodSpec pod) {
        double cpu = 0;
        for (Container c : pod.getContainers()) {
            if (c.getResources() != null && c.getResources().getRequests() != null) {
                Quantity q = c.getResources().getRequests().get("cpu");
                cpu += q == null ? 0 : Quantity.getAmountInBytes(q).doubleValue();
            }
        }
        return cpu;
    }
}
