package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * Every image runs as a non-root user (185, the uid the chart's and the Jobs' securityContext set) from a base image
 * pinned to a version, and each Quarkus service has a JVM and a native Dockerfile where k8s/kind.sh looks for them.
 */
class DockerfilesTest {

    /** The chart's values key of each service, for its port. */
    private static final Map<String, String> CHART_KEYS = Map.of(
            "auth-service", "authService", "registration-service", "registrationService");

    @Test
    void everyQuarkusServiceHasAJvmAndANativeDockerfile() {
        assertFalse(Repo.quarkusServices().isEmpty());
        for (String service : Repo.quarkusServices()) {
            for (String variant : List.of("jvm", "native")) {
                assertTrue(Files.exists(Repo.ROOT.resolve(service + "/src/main/docker/Dockerfile." + variant)),
                        service + " has no src/main/docker/Dockerfile." + variant + " (k8s/kind.sh IMAGE_VARIANT=" + variant + ")");
            }
        }
        assertTrue(Repo.read("k8s/kind.sh").contains("/src/main/docker/Dockerfile.$IMAGE_VARIANT"));
    }

    @Test
    void everyDockerfileRunsAsUser185FromAPinnedBaseImage() {
        List<Path> dockerfiles = dockerfiles();
        assertTrue(dockerfiles.size() >= 3, dockerfiles.toString());
        for (Path dockerfile : dockerfiles) {
            String name = Repo.relative(dockerfile);
            List<String> lines = instructions(dockerfile);
            List<String> froms = lines.stream().filter(line -> line.startsWith("FROM ")).toList();
            assertFalse(froms.isEmpty(), name + " has no FROM");
            for (String from : froms) {
                String image = from.split("\\s+")[1];
                String lastSegment = image.substring(image.lastIndexOf('/') + 1);
                assertTrue(lastSegment.contains(":") || image.contains("@sha256:"), name + ": " + image + " has no tag");
                assertFalse(image.endsWith(":latest"), name + ": " + image + " is not pinned");
            }
            String user = lines.stream().filter(line -> line.startsWith("USER ")).reduce((first, last) -> last)
                    .orElse("USER root");
            assertEquals("USER 185", user, name + " must end as USER 185 (non-root, the chart's runAsUser)");
        }
    }

    @Test
    void nativeImagesUseTheUbi9MicroImageLikeTheMandrelBuilder() {
        for (Path dockerfile : dockerfiles()) {
            if (dockerfile.getFileName().toString().equals("Dockerfile.native")) {
                // The default builder (ubi9-quarkus-mandrel-builder-image) links against UBI 9's glibc; a UBI 8
                // runtime image fails at start with "GLIBC_2.33 not found".
                assertTrue(instructions(dockerfile).stream().anyMatch(line -> line.startsWith("FROM quay.io/quarkus/ubi9-quarkus-micro-image:")),
                        Repo.relative(dockerfile));
            }
        }
    }

    @Test
    void serviceImagesExposeThePortTheChartGivesTheService() {
        JsonNode values = Repo.yaml("helm/device-identity/values.yaml");
        for (Path dockerfile : dockerfiles()) {
            String module = Repo.relative(dockerfile).split("/")[0];
            if (CHART_KEYS.containsKey(module)) {
                String port = values.path(CHART_KEYS.get(module)).path("port").asText();
                assertTrue(instructions(dockerfile).contains("EXPOSE " + port),
                        Repo.relative(dockerfile) + " does not EXPOSE " + port);
            }
        }
    }

    private static List<Path> dockerfiles() {
        try (Stream<Path> files = Files.walk(Repo.ROOT)) {
            return files.filter(file -> file.getFileName().toString().matches("Dockerfile(\\.[a-z-]+)?"))
                    .filter(file -> Stream.of("/target/", "/.local/", "/.git/", "/node_modules/")
                            .noneMatch(part -> file.toString().contains(part)))
                    .sorted().toList();
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }

    private static List<String> instructions(Path dockerfile) {
        try {
            List<String> lines = new ArrayList<>();
            for (String line : Files.readAllLines(dockerfile)) {
                String trimmed = line.strip();
                if (!trimmed.isEmpty() && !trimmed.startsWith("#")) {
                    lines.add(trimmed);
                }
            }
            return lines;
        } catch (IOException e) {
            throw new java.io.UncheckedIOException(e);
        }
    }
}
