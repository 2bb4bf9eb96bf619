package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;

import javax.xml.parsers.DocumentBuilderFactory;

import org.junit.jupiter.api.Test;
import org.w3c.dom.Element;
import org.w3c.dom.Node;

/**
 * `make test` (and so .ci/run and ci.yml) ends with the native-sources build of every Quarkus service in the root
 * pom, after the tests, and GraalVM's analysis of each, so that native build-time problems fail CI on machines
 * without GraalVM or Docker; `make native-it` runs the integration tests against the executables `make native`
 * linked, and nothing else. Read from `make -n <target>`, i.e. the commands make would really run, and from the
 * root pom's profile that target uses.
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
        assertBuildsEveryQuarkusService(build);
    }

    @Test
    void makeTestStopsTheTestStackAfterTheTestsAndBeforeTheNativeBuild() throws Exception {
        List<String> commands = dryRun("test");
        int verify = indexOf(commands, " verify ");
        int down = indexOf(commands.subList(verify + 1, commands.size()), "scripts/stack.sh db-down test");
        int nativeSources = indexOf(commands, "-Dquarkus.native.sources-only=true");
        assertTrue(down >= 0 && verify + 1 + down < nativeSources, "make -n test: " + commands);
    }

    @Test
    void makeTestStopsTheTestStackWhenATestFailsAndFailsItself() throws Exception {
        // The real recipe, with stand-ins for the stack script and for Maven (a failing test run).
        Process make = new ProcessBuilder("make", "--no-print-directory", "-o", "install-deps", "test", "MVN=false",
                "TEST_STACK=echo test-stack").directory(Repo.ROOT.toFile()).redirectErrorStream(true).start();
        String output = new String(make.getInputStream().readAllBytes());
        assertTrue(make.waitFor(30, TimeUnit.SECONDS));
        assertNotEquals(0, make.exitValue(), output);
        assertTrue(output.lines().anyMatch("test-stack db-down test"::equals), output);
        assertFalse(output.contains("sources-only"), "nothing after the failed tests: " + output);
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
    void makeNativeItRunsOnlyTheIntegrationTestsAgainstTheLocallyLinkedExecutablesOfEveryService() throws Exception {
        List<String> commands = dryRun("native-it");
        // Each service's executable is named as its packaged artifact before the tests start it.
        int named = indexOf(commands, "scripts/native-image.sh artifact");
        int verify = indexOf(commands, " verify ");
        assertTrue(named >= 0 && verify > named, "make -n native-it: " + commands);
        Repo.quarkusServices().forEach(service -> assertTrue(
                commands.get(named).contains("scripts/native-image.sh artifact " + service + " "), commands.get(named)));
        String build = commands.get(verify);
        assertBuildsEveryQuarkusService(build);
        assertTrue(build.matches(".*\\s-Plocal-native(\\s.*|$)"), build);
        assertTrue(build.contains("-Dtest.pg.port=") && build.contains("-Dtest.pgbouncer.port=")
                && build.contains("-Dtest.db.ca="), build);
        // Nothing is rebuilt: no native image (local or in a container), and no JAR the tests could start instead.
        for (String rebuild : List.of("quarkus.native", "container-build", "quarkus.package", " package ")) {
            assertEquals(-1, String.join(" ", commands).indexOf(rebuild), rebuild + " in " + commands);
        }
    }

    @Test
    void theLocalNativeProfileSkipsTheQuarkusBuildAndTheUnitTestsAndStartsTheLinkedExecutable() {
        Element profile = profile("local-native");
        assertEquals("true", text(profile, "properties", "quarkus.build.skip"));
        Element plugins = child(child(child(profile, "build"), "pluginManagement"), "plugins");
        assertEquals("true", text(plugin(plugins, "maven-surefire-plugin"), "configuration", "skip"));
        // Where `scripts/native-image.sh build` links the executable: target/native/ beside its shared libraries.
        assertEquals("${project.build.directory}/native/${project.build.finalName}-runner",
                text(plugin(plugins, "maven-failsafe-plugin"), "configuration", "systemPropertyVariables",
                        "native.image.path"));
        assertTrue(Repo.read("scripts/native-image.sh").contains("out=\"$here/$service/target/native\""));
    }

    @Test
    void makeNativeContainerBuildsInTheBuilderImage() throws Exception {
        String commands = String.join(" ", dryRun("native-container"));
        assertTrue(commands.contains("package") && commands.contains("-Dquarkus.native.container-build=true"), commands);
    }

    /** The Maven command builds exactly the Quarkus services ({@code -pl}). */
    private static void assertBuildsEveryQuarkusService(String build) {
        String modules = build.replaceAll(".*-pl (\\S+).*", "$1");
        assertEquals(Repo.quarkusServices(), Arrays.asList(modules.split(",")), build);
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

    private static Element profile(String id) {
        try {
            DocumentBuilderFactory factory = DocumentBuilderFactory.newInstance();
            factory.setFeature("http://apache.org/xml/features/disallow-doctype-decl", true);
            Element project = factory.newDocumentBuilder().parse(Repo.ROOT.resolve("pom.xml").toFile())
                    .getDocumentElement();
            for (Element profile : children(child(project, "profiles"), "profile")) {
                if (text(profile, "id").equals(id)) {
                    return profile;
                }
            }
        } catch (Exception e) {
            throw new IllegalStateException("cannot read the root pom", e);
        }
        throw new AssertionError("no profile " + id + " in the root pom");
    }

    private static Element plugin(Element plugins, String artifactId) {
        return children(plugins, "plugin").stream().filter(plugin -> text(plugin, "artifactId").equals(artifactId))
                .findFirst().orElseThrow(() -> new AssertionError("no " + artifactId + " in the profile"));
    }

    private static List<Element> children(Element parent, String name) {
        List<Element> found = new ArrayList<>();
        for (Node node = parent.getFirstChild(); node != null; node = node.getNextSibling()) {
            if (node instanceof Element element && element.getTagName().equals(name)) {
                found.add(element);
            }
        }
        return found;
    }

    private static Element child(Element parent, String name) {
        List<Element> found = children(parent, name);
        assertEquals(1, found.size(), "<" + name + "> under <" + parent.getTagName() + ">");
        return found.get(0);
    }

    private static String text(Element parent, String... path) {
        Element element = parent;
        for (String name : path) {
            element = child(element, name);
        }
        return element.getTextContent().strip();
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
