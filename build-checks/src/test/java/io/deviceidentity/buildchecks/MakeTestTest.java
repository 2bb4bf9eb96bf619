package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * `make test` (and so .ci/run and ci.yml) ends with the native-sources build of every Quarkus service in the root
 * pom, after the tests, and GraalVM's analysis of each, so that native build-time problems fail CI on machines
 * without GraalVM or Docker. Read from
 * `make -n test`, i.e. the commands make would really run.
 */
class MakeTestTest {

    @Test
    void makeTestRunsTheNativeSourcesBuildOfEveryQuarkusServiceAfterVerify() throws Exception {
        List<String> commands = dryRun("test");
        int verify = indexOf(commands, " verify ");
        int nativeSources = indexOf(commands, "-Dquarkus.native.sources-only=true");
        assertTrue(verify >= 0 && nativeSources > verify, "make -n test: " + commands);

        String build = commands.get(nativeSources);
        assertTrue(build.contains("-Dquarkus.native.enabled=true"), build);
        // No JAR packaging: the native-sources run must not replace the JVM build `make up` and the images use.
        assertTrue(build.contains("-Dquarkus.package.jar.enabled=false"), build);
        String modules = build.replaceAll(".*-pl (\\S+).*", "$1");
        assertEquals(Repo.quarkusServices(), Arrays.asList(modules.split(",")), build);
    }

    @Test
    void makeTestRunsTheNativeAnalysisOfEveryQuarkusServiceAfterTheNativeSources() throws Exception {
        assertRunsForEveryServiceAfterTheNativeSources(dryRun("test"), "scripts/native-image.sh analyse");
    }

    @Test
    void makeNativeTestBuildsInTheBuilderImageAndRunsOnlyTheIntegrationTests() throws Exception {
        String commands = String.join(" ", dryRun("native-test"));
        assertTrue(commands.contains("verify") && commands.contains("-Dquarkus.native.container-build=true"), commands);
        assertTrue(commands.contains("-Dtest.pg.port=") && commands.contains("-Dtest.pgbouncer.port="), commands);
    }

    @Test
    void makeNativeLinksEveryQuarkusServiceWithTheLocalToolchainAndMakeTestNever() throws Exception {
        List<String> commands = dryRun("native");
        assertRunsForEveryServiceAfterTheNativeSources(commands, "scripts/native-image.sh build");
        assertTrue(String.join(" ", commands).indexOf("container-build") < 0, "make -n native: " + commands);
        // A full link takes minutes and GBs per service: CI's `make test` runs only the C layer's own tests.
        assertEquals(-1, indexOf(dryRun("test"), "scripts/native-image.sh build"));
        assertTrue(indexOf(dryRun("test"), "native/c/test.sh") >= 0);
    }

    @Test
    void makeNativeContainerBuildsInTheBuilderImage() throws Exception {
        String commands = String.join(" ", dryRun("native-container"));
        assertTrue(commands.contains("package") && commands.contains("-Dquarkus.native.container-build=true"), commands);
    }

    /** The script runs once per Quarkus service, in a command after the native-sources build. */
    private static void assertRunsForEveryServiceAfterTheNativeSources(List<String> commands, String script) {
        int nativeSources = indexOf(commands, "-Dquarkus.native.sources-only=true");
        int run = indexOf(commands, script);
        assertTrue(nativeSources >= 0 && run > nativeSources, "make -n: " + commands);
        for (String service : Repo.quarkusServices()) {
            assertTrue(commands.get(run).contains(script + " " + service + " "), commands.get(run));
        }
    }

    private static List<String> dryRun(String target) throws IOException, InterruptedException {
        Process make = new ProcessBuilder("make", "-n", "--no-print-directory", target)
                .directory(Repo.ROOT.toFile()).redirectErrorStream(true).start();
        String output = new String(make.getInputStream().readAllBytes());
        assertTrue(make.waitFor(30, TimeUnit.SECONDS));
        assertEquals(0, make.exitValue(), output);
        // Join backslash-continued lines so each command is one element.
        return Arrays.stream(output.replace("\\\n", " ").split("\n")).map(String::strip).toList();
    }

    private static int indexOf(List<String> commands, String fragment) {
        for (int i = 0; i < commands.size(); i++) {
            if (commands.get(i).contains(fragment)) {
                return i;
            }
        }
        return -1;
    }
}
