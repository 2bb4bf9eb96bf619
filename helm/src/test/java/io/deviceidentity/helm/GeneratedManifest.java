package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.fail;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;

import io.fabric8.kubernetes.api.model.Container;
import io.fabric8.kubernetes.api.model.HasMetadata;
import io.fabric8.kubernetes.api.model.Service;
import io.fabric8.kubernetes.api.model.apps.Deployment;

/**
 * What quarkus-kubernetes writes to {@code <service>/target/kubernetes/kubernetes.yml} at {@code mvn package}, from the
 * service's own configuration (the {@code quarkus.kubernetes.*} block of its application.properties).
 */
record GeneratedManifest(String service, Path file, List<HasMetadata> resources) {

    /** The manifest of a service in this repository. */
    static GeneratedManifest of(String service) {
        return load(service, Chart.REPO.resolve(service).resolve("target/kubernetes/kubernetes.yml"));
    }

    /**
     * Fails (never skips) when the file is missing: the check would otherwise pass by not looking. The services are
     * dependencies of this module, so every reactor build that packages them does so before this module's tests.
     */
    static GeneratedManifest load(String service, Path file) {
        if (!Files.isRegularFile(file)) {
            fail(file + " is missing: " + service + " has not been packaged. quarkus-kubernetes writes it at `mvn package`;"
                    + " run `mvn -B verify` (as `make test` does) or `mvn -B package -pl helm -am`, not `mvn test`.");
        }
        return new GeneratedManifest(service, file, Chart.parseStrictly(Chart.read(file)));
    }

    Deployment deployment() {
        return one(Deployment.class);
    }

    Service k8sService() {
        return one(Service.class);
    }

    Container container() {
        List<Container> containers = deployment().getSpec().getTemplate().getSpec().getContainers();
        if (containers.size() != 1) {
            fail(file + ": expected one container, found " + containers.size());
        }
        return containers.get(0);
    }

    /** The resources of a kind that is not in the fabric8 model (the ServiceMonitor), by kind. */
    List<HasMetadata> ofKind(String kind) {
        return resources.stream().filter(r -> r.getKind().equals(kind)).toList();
    }

    private <T extends HasMetadata> T one(Class<T> type) {
        List<T> found = resources.stream().filter(type::isInstance).map(type::cast).toList();
        if (found.size() != 1) {
            fail(file + ": expected one " + type.getSimpleName() + ", found " + found.size());
        }
        return found.get(0);
    }
}
