package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.Arrays;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The images CI builds and loads into kind are the ones the chart and the k8s Jobs deploy by default: same
 * repositories, and the tag is the chart's appVersion. A mismatch would only show on a cluster, as pods stuck in
 * ErrImageNeverPull (the kind values use pullPolicy Never).
 */
class ImagesTest {

    private static final Pattern IMAGES = Pattern.compile("(?m)^IMAGES=\\(([^)]*)\\)");
    private static final Pattern WORKFLOW_IMAGE = Pattern.compile("(?<![\\w/.-])device-identity/([a-z0-9-]+)");

    @Test
    void kindShBuildsAndLoadsEveryImageUnderOneNamingScheme() {
        String kindSh = Repo.read("k8s/kind.sh");
        assertTrue(kindSh.contains("docker build") && kindSh.contains("-t \"device-identity/$image:$VERSION\""),
                "k8s/kind.sh no longer tags images device-identity/<module>:<appVersion>");
        assertTrue(kindSh.contains("kind load docker-image \"device-identity/$image:$VERSION\""),
                "k8s/kind.sh no longer loads the images it builds");
        assertTrue(kindSh.contains("appVersion"), "k8s/kind.sh no longer takes the tag from Chart.yaml's appVersion");
    }

    @Test
    void imagesBuiltForKindAreTheChartDefaultsAndTheLoadTestJobImage() {
        Set<String> built = builtImages();
        JsonNode values = Repo.yaml("helm/device-identity/values.yaml");
        String appVersion = Repo.yaml("helm/device-identity/Chart.yaml").path("appVersion").asText();

        for (String service : List.of("authService", "registrationService")) {
            JsonNode image = values.path(service).path("image");
            assertTrue(built.contains(image.path("repository").asText()),
                    service + ".image.repository " + image.path("repository") + " is not built by k8s/kind.sh: " + built);
            assertEquals("", image.path("tag").asText(), service + ".image.tag must default to the appVersion");
        }

        String job = null;
        for (JsonNode container : Repo.yaml("k8s/jobs/loadtest-job.yaml").path("spec").path("template").path("spec")
                .path("initContainers")) {
            if (container.path("name").asText().equals("loadtest")) {
                job = container.path("image").asText();
            }
        }
        assertTrue(job != null, "k8s/jobs/loadtest-job.yaml has no init container named loadtest");
        assertEquals(job.substring(0, job.lastIndexOf(':')), "device-identity/loadtest");
        assertTrue(built.contains("device-identity/loadtest"), built.toString());
        assertEquals(appVersion, job.substring(job.lastIndexOf(':') + 1), "the load-test Job's tag is not appVersion");
    }

    @Test
    void imagesWorkflowsNameAreImagesKindShBuilds() {
        Set<String> built = builtImages();
        for (Path file : Repo.workflowFiles()) {
            for (String run : Repo.runScripts(Repo.yaml(file))) {
                Matcher image = WORKFLOW_IMAGE.matcher(run);
                while (image.find()) {
                    assertTrue(built.contains(image.group()), Repo.relative(file) + " names image " + image.group()
                            + ", which neither the chart nor k8s/kind.sh use: " + built);
                }
            }
        }
    }

    private static Set<String> builtImages() {
        Matcher images = IMAGES.matcher(Repo.read("k8s/kind.sh"));
        assertTrue(images.find(), "k8s/kind.sh has no IMAGES=(...) list");
        return Arrays.stream(images.group(1).trim().split("\\s+")).map(name -> "device-identity/" + name)
                .collect(Collectors.toCollection(LinkedHashSet::new));
    }
}
