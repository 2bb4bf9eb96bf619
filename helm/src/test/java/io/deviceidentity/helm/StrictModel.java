package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.fail;

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.Collection;
import java.util.IdentityHashMap;
import java.util.Map;
import java.util.Set;

import io.fabric8.kubernetes.api.model.GenericKubernetesResource;

/**
 * fabric8 does not reject unknown fields: it keeps them in {@code additionalProperties}. A misspelt key
 * ({@code readinesProbe}) would be silently ignored by the API server too, so every parsed object is walked and
 * any additional property fails the test.
 */
final class StrictModel {

    /**
     * Custom resources the chart may render whose spec fabric8 does not model, so that it must be checked by hand.
     * cert-manager's Certificate and Issuer (templates/tls/certificates.yaml): no fabric8 model exists for them, so
     * TlsChartTest checks their spec field by field. The Prometheus Operator's ServiceMonitor and PrometheusRule are
     * typed (io.fabric8:openshift-model-monitoring) and walked like the core kinds. CloudNativePG's Cluster and Pooler
     * (templates/postgresql/cnpg.yaml): CloudNativePgSchemaTest validates them against the operator's CRD schema.
     */
    private static final Set<String> ALLOWED_GENERIC_KINDS = Set.of("cert-manager.io/v1/Certificate", "cert-manager.io/v1/Issuer",
            "postgresql.cnpg.io/v1/Cluster", "postgresql.cnpg.io/v1/Pooler");

    /** Packages of the typed models whose objects are walked for unknown fields. */
    private static final Set<String> MODEL_PACKAGES = Set.of("io.fabric8.kubernetes.api.model",
            "io.fabric8.openshift.api.model.monitoring");

    private StrictModel() {
    }

    static void assertNoUnknownFields(Object resource) {
        if (resource instanceof GenericKubernetesResource generic) {
            String kind = generic.getApiVersion() + "/" + generic.getKind();
            if (!ALLOWED_GENERIC_KINDS.contains(kind)) {
                fail("unknown kind " + kind + " (" + generic.getMetadata().getName() + ")");
            }
            walk(generic.getMetadata(), kind + ".metadata", java.util.Collections.newSetFromMap(new IdentityHashMap<>()));
            return;
        }
        walk(resource, resource.getClass().getSimpleName(), java.util.Collections.newSetFromMap(new IdentityHashMap<>()));
    }

    private static void walk(Object node, String path, Set<Object> seen) {
        if (node == null || !seen.add(node)) {
            return;
        }
        if (node instanceof Collection<?> items) {
            int i = 0;
            for (Object item : items) {
                walk(item, path + "[" + i++ + "]", seen);
            }
            return;
        }
        if (node instanceof Map<?, ?> map) {
            for (Map.Entry<?, ?> e : map.entrySet()) {
                walk(e.getValue(), path + "." + e.getKey(), seen);
            }
            return;
        }
        String pkg = node.getClass().getPackageName();
        if (MODEL_PACKAGES.stream().noneMatch(pkg::startsWith)) {
            return;
        }
        for (Method getter : node.getClass().getMethods()) {
            if (getter.getParameterCount() != 0 || Modifier.isStatic(getter.getModifiers())
                    || !getter.getName().startsWith("get") || getter.getName().equals("getClass")) {
                continue;
            }
            Object value = invoke(getter, node);
            if (getter.getName().equals("getAdditionalProperties")) {
                if (value instanceof Map<?, ?> extra && !extra.isEmpty()) {
                    fail("unknown field(s) " + extra.keySet() + " at " + path);
                }
                continue;
            }
            walk(value, path + "." + getter.getName().substring(3), seen);
        }
    }

    private static Object invoke(Method getter, Object target) {
        try {
            return getter.invoke(target);
        } catch (IllegalAccessException | InvocationTargetException e) {
            throw new IllegalStateException("cannot read " + getter, e);
        }
    }
}
