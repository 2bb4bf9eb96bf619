package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * Pods below one CPU use a JVM image with C1 alone (jvm.c1BelowOneCpu): the chart writes the option where
 * the image's start script reads it, keeps what the image put there, and the real JVM accepts the line.
 */
class JvmOptionsChartTest {

    private static final String OPTIONS = "JAVA_OPTS_APPEND";

    @Test
    void podsOfOneCpuOrMoreKeepTheJvmsOwnJit() {
        Chart.Rendered defaults = Chart.render(); // auth-service 2 CPUs, registration-service 1
        assertFalse(ServicesTest.env(defaults, "auth-service").containsKey(OPTIONS));
        assertFalse(ServicesTest.env(defaults, "registration-service").containsKey(OPTIONS));
    }

    @Test
    void aPodBelowOneCpuRunsC1Alone() {
        for (Object limit : new Object[] {"250m", 0.25, "999m"}) {
            Chart.Rendered small = Chart.render(Chart.set("authService.resources.limits.cpu", limit,
                    "authService.resources.requests.cpu", "100m", "registrationService.resources.limits.cpu", "500m",
                    "registrationService.resources.requests.cpu", "100m"));
            for (String service : List.of("auth-service", "registration-service")) {
                String options = ServicesTest.env(small, service).get(OPTIONS);
                assertTrue(options != null && options.contains("-XX:TieredStopAtLevel=1"), service + " at " + limit);
            }
        }
    }

    @Test
    void theSwitchLeavesTheJitAlone() {
        Chart.Rendered off = Chart.render(Chart.set("authService.resources.limits.cpu", "250m",
                "authService.resources.requests.cpu", "100m", "authService.jvm.c1BelowOneCpu", false));
        assertFalse(ServicesTest.env(off, "auth-service").containsKey(OPTIONS));
    }

    /** The chart's value replaces the image's ENV of the same name, so it must start with what the image sets. */
    @Test
    void theImagesOwnOptionsAreKept() {
        String options = smallPodOptions();
        for (String service : List.of("auth-service", "registration-service")) {
            String dockerfile = Chart.read(Chart.REPO.resolve(service).resolve("src/main/docker/Dockerfile.jvm"));
            Matcher env = Pattern.compile("ENV " + OPTIONS + "=\"([^\"]*)\"").matcher(dockerfile);
            assertTrue(env.find(), service + "'s Dockerfile.jvm sets " + OPTIONS);
            assertTrue(options.startsWith(env.group(1) + " "), options);
        }
    }

    @Test
    void theRealJvmAcceptsTheLineAndRunsC1Alone() throws Exception {
        List<String> command = new ArrayList<>();
        command.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
        command.addAll(Arrays.asList(smallPodOptions().split(" ")));
        command.addAll(List.of("-XX:+PrintFlagsFinal", "-version"));
        Process java = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(java.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(java.waitFor(60, TimeUnit.SECONDS), "java -version did not end");
        assertEquals(0, java.exitValue(), output);
        Matcher level = Pattern.compile("TieredStopAtLevel\\s*=\\s*(\\d+)").matcher(output);
        assertTrue(level.find(), output);
        assertEquals("1", level.group(1));
    }

    private static String smallPodOptions() {
        Chart.Rendered small = Chart.render(Chart.set("authService.resources.limits.cpu", "250m",
                "authService.resources.requests.cpu", "100m"));
        return ServicesTest.env(small, "auth-service").get(OPTIONS);
    }
}
