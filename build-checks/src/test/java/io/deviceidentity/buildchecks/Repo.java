package io.deviceidentity.buildchecks;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

/** The repository as the checks see it: root pom modules, Makefile targets, workflow files, the chart's values. */
final class Repo {

    static final Path ROOT = Path.of(System.getProperty("repo.root", "..")).toAbsolutePath().normalize();
    static final ObjectMapper YAML = new ObjectMapper(new YAMLFactory());

    /**
     * Modules that the workflows and k8s/kind.sh already build but that are developed on other branches. Paths into
     * them are checked once they are listed in the root pom; until then only their names are accepted, so a typo in
     * any other path still fails. Remove a name when its module has landed.
     */
    static final Set<String> PENDING_MODULES = Set.of();

    private static final Pattern MODULE = Pattern.compile("<module>([^<]+)</module>");
    private static final Pattern MAKE_TARGET = Pattern.compile("^([A-Za-z0-9][A-Za-z0-9_.-]*)\\s*:(?!=)", Pattern.MULTILINE);

    private Repo() {
    }

    /**
     * The load generator as a command line, run from this test JVM's class path (build-checks depends on loadtest):
     * what the scripts' LOADTEST variable holds, so that they read metrics through the real program.
     */
    static String loadtestCommand() {
        return Path.of(System.getProperty("java.home"), "bin", "java") + " -XX:TieredStopAtLevel=1 -XX:+UseSerialGC -cp "
                + System.getProperty("java.class.path") + " io.deviceidentity.loadtest.LoadTest";
    }

    static String read(String relative) {
        try {
            return Files.readString(ROOT.resolve(relative));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static Set<String> pomModules() {
        Set<String> modules = new LinkedHashSet<>();
        Matcher matcher = MODULE.matcher(read("pom.xml"));
        while (matcher.find()) {
            modules.add(matcher.group(1).trim());
        }
        return modules;
    }

    /** Root pom modules built with the Quarkus Maven plugin: the services. */
    static List<String> quarkusServices() {
        return pomModules().stream()
                .filter(module -> Files.exists(ROOT.resolve(module).resolve("pom.xml")))
                .filter(module -> read(module + "/pom.xml").contains("<artifactId>quarkus-maven-plugin</artifactId>"))
                .toList();
    }

    static Set<String> makeTargets() {
        Set<String> targets = new LinkedHashSet<>();
        Matcher matcher = MAKE_TARGET.matcher(read("Makefile"));
        while (matcher.find()) {
            targets.add(matcher.group(1));
        }
        return targets;
    }

    static List<Path> workflowFiles() {
        try (Stream<Path> files = Files.list(ROOT.resolve(".github/workflows"))) {
            return files.filter(file -> file.toString().endsWith(".yml") || file.toString().endsWith(".yaml"))
                    .sorted().toList();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    static JsonNode yaml(Path file) {
        try {
            return YAML.readTree(file.toFile());
        } catch (IOException e) {
            throw new UncheckedIOException("cannot parse " + ROOT.relativize(file), e);
        }
    }

    static JsonNode yaml(String relative) {
        return yaml(ROOT.resolve(relative));
    }

    static List<JsonNode> steps(JsonNode workflow) {
        List<JsonNode> steps = new ArrayList<>();
        workflow.path("jobs").forEach(job -> job.path("steps").forEach(steps::add));
        return steps;
    }

    /** Every `run:` script of every job, one entry per step. */
    static List<String> runScripts(JsonNode workflow) {
        return steps(workflow).stream().filter(step -> step.has("run")).map(step -> step.get("run").asText()).toList();
    }

    static String relative(Path file) {
        return ROOT.relativize(file).toString();
    }
}
