package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * What can be checked of .github/workflows without GitHub: the files parse and have the shape Actions needs, every
 * action is pinned to a release, and every Makefile target, script and repository file a step names exists.
 */
class WorkflowsTest {

    /** Paths named by steps: words of two or more segments. Only those inside this repository are checked. */
    private static final Pattern PATH = Pattern.compile("(?<![\\w./$*-])(\\.?[\\w-][\\w.-]*(?:/[\\w.*-]+)+)/?");
    private static final Pattern MAKE = Pattern.compile("(?:^|[;&|(]\\s*|\\s)make[ \\t]+(.*)$", Pattern.MULTILINE);
    /** Directories that only hold local state or build output; never in a fresh checkout. */
    private static final Set<String> UNTRACKED = Set.of("target", ".local");
    private static final Pattern PINNED = Pattern.compile("[\\w.-]+/[\\w.-]+(/[\\w./-]+)?@(v\\d+\\.\\d+\\.\\d+|[0-9a-f]{40})");

    @Test
    void theThreeWorkflowsExist() {
        List<String> names = Repo.workflowFiles().stream().map(file -> file.getFileName().toString()).toList();
        assertTrue(names.containsAll(List.of("ci.yml", "native.yml", "e2e-kind.yml")), names.toString());
    }

    @Test
    void everyWorkflowParsesWithTriggersAndJobsWhoseStepsRunOrUseSomething() {
        for (Path file : Repo.workflowFiles()) {
            JsonNode workflow = Repo.yaml(file);
            String name = Repo.relative(file);
            // YAML 1.1 readers may turn the key `on` into true; GitHub reads it as "on".
            assertTrue(workflow.has("on") || workflow.has("true"), name + " has no triggers");
            assertTrue(workflow.path("jobs").size() > 0, name + " has no jobs");
            workflow.path("jobs").fields().forEachRemaining(job -> {
                assertTrue(job.getValue().hasNonNull("runs-on"), name + " job " + job.getKey() + " has no runs-on");
                assertTrue(job.getValue().path("timeout-minutes").isInt(),
                        name + " job " + job.getKey() + " has no timeout-minutes (the default is 6 hours)");
                assertTrue(job.getValue().path("steps").size() > 0, name + " job " + job.getKey() + " has no steps");
                job.getValue().path("steps").forEach(step -> assertTrue(step.has("run") != step.has("uses"),
                        name + ": a step needs exactly one of run and uses: " + step));
            });
        }
    }

    @Test
    void ciRunsMakeTestOnPushAndPullRequestWithJdk17AndAMavenCache() {
        JsonNode ci = Repo.yaml(".github/workflows/ci.yml");
        JsonNode on = ci.has("on") ? ci.get("on") : ci.get("true");
        assertTrue(on.has("push") && on.has("pull_request"), "ci.yml must run on push and pull_request");
        assertTrue(Repo.runScripts(ci).stream().anyMatch(run -> run.strip().equals("make test")), "ci.yml must run make test");
        JsonNode java = Repo.steps(ci).stream()
                .filter(step -> step.path("uses").asText().startsWith("actions/setup-java@")).findFirst().orElseThrow();
        assertEquals("17", java.path("with").path("java-version").asText());
        assertEquals("maven", java.path("with").path("cache").asText());
    }

    /** The project's one install entry point (scripts/install.sh; InstallScriptsTest runs its logic). */
    static final String INSTALL_ENTRY_POINT = "make install-deps";

    /**
     * ci.yml (GitHub, not root) and .ci/run (this workplace's CI, root) install through the same entry point, before
     * `make test`, and neither installs anything on its own: a package added to one path only would be missing on the
     * other, which is how ci.yml came to lack Mosquitto.
     */
    @Test
    void ciYmlAndCiRunInstallThroughTheSameEntryPointBeforeMakeTest() {
        List<String> workflow = Repo.runScripts(Repo.yaml(".github/workflows/ci.yml")).stream().map(String::strip).toList();
        List<String> ciRun = Repo.read(".ci/run").lines().map(String::strip)
                .filter(line -> !line.isEmpty() && !line.startsWith("#")).toList();
        for (var commands : Map.of(".github/workflows/ci.yml", workflow, ".ci/run", ciRun).entrySet()) {
            List<String> lines = commands.getValue();
            int install = lines.indexOf(INSTALL_ENTRY_POINT);
            assertTrue(install >= 0 && install < lines.indexOf("make test"),
                    commands.getKey() + " must run `" + INSTALL_ENTRY_POINT + "` before `make test`: " + lines);
            for (String line : lines) {
                assertFalse(Pattern.compile("(^|[\\s;&|(])(apt-get|apt|sudo|dpkg)\\s|\\.sh install\\b").matcher(line).find(),
                        commands.getKey() + " installs outside the entry point: " + line);
            }
        }
        assertEquals(List.of("\tscripts/install.sh"), recipe("install-deps"));
        String install = Repo.read("scripts/install.sh");
        assertTrue(install.contains("\"$ROOT/scripts/stack.sh\" install") && install.contains("\"$ROOT/scripts/mosquitto.sh\" install")
                && install.contains("stress-ng"), "scripts/install.sh must install the test stack, Mosquitto and stress-ng");
    }

    /** The suites again while stress-ng keeps every core busy, after `make test` (scripts/test-busy.sh). */
    @Test
    void ciRunsTheSuitesOnASaturatedMachineAfterMakeTest() {
        List<String> workflow = Repo.runScripts(Repo.yaml(".github/workflows/ci.yml")).stream().map(String::strip).toList();
        assertTrue(workflow.indexOf("make test-busy") > workflow.indexOf("make test"), workflow.toString());
        assertTrue(recipe("test-busy").stream().anyMatch(line -> line.contains("scripts/test-busy.sh")), recipe("test-busy").toString());
    }

    @Test
    void everyActionIsPinnedToAReleaseTagOrCommit() {
        for (Path file : Repo.workflowFiles()) {
            for (JsonNode step : Repo.steps(Repo.yaml(file))) {
                String uses = step.path("uses").asText("");
                if (!uses.isEmpty() && !uses.startsWith("./")) {
                    assertTrue(PINNED.matcher(uses).matches(),
                            Repo.relative(file) + ": " + uses + " is not pinned to vX.Y.Z or a commit");
                }
            }
        }
    }

    @Test
    void everyMakeTargetAWorkflowCallsIsInTheMakefile() {
        Set<String> targets = Repo.makeTargets();
        List<String> called = new ArrayList<>();
        for (Path file : Repo.workflowFiles()) {
            for (String run : Repo.runScripts(Repo.yaml(file))) {
                Matcher make = MAKE.matcher(run);
                while (make.find()) {
                    for (String word : make.group(1).trim().split("\\s+")) {
                        if (word.contains(">") || word.contains("<") || word.startsWith("&") || word.startsWith("|")
                                || word.startsWith(";") || word.startsWith("#")) {
                            break; // the rest of the line is not make's
                        }
                        // make's own options and VAR=value assignments are not targets
                        if (!word.isEmpty() && !word.startsWith("-") && !word.contains("=")) {
                            called.add(word);
                            assertTrue(targets.contains(word),
                                    Repo.relative(file) + " calls `make " + word + "`; the Makefile has " + targets);
                        }
                    }
                }
            }
        }
        assertFalse(called.isEmpty(), "no workflow calls make: the check would prove nothing");
    }

    @Test
    void everyRepositoryPathAWorkflowNamesExistsAndItsScriptsAreExecutable() {
        Set<String> modules = Repo.pomModules();
        List<String> checked = new ArrayList<>();
        for (Path file : Repo.workflowFiles()) {
            for (String text : texts(Repo.yaml(file))) {
                Matcher path = PATH.matcher(text);
                while (path.find()) {
                    String reference = path.group(1);
                    String first = reference.substring(0, reference.indexOf('/'));
                    boolean inRepo = Files.isDirectory(Repo.ROOT.resolve(first)) || modules.contains(first)
                            || Repo.PENDING_MODULES.contains(first);
                    if (!inRepo || UNTRACKED.contains(first) || reference.contains("*") || reference.contains("/target/")
                            || (Repo.PENDING_MODULES.contains(first) && !modules.contains(first))) {
                        continue;
                    }
                    Path target = Repo.ROOT.resolve(reference);
                    checked.add(reference);
                    assertTrue(Files.exists(target), Repo.relative(file) + " names " + reference + ", which does not exist");
                    if (reference.endsWith(".sh") || reference.startsWith(".ci/")) {
                        assertTrue(Files.isExecutable(target), reference + " is not executable");
                    }
                }
            }
        }
        assertTrue(checked.stream().anyMatch(reference -> reference.startsWith("scripts/")), checked.toString());
        assertTrue(checked.stream().anyMatch(reference -> reference.startsWith("k8s/")), checked.toString());
    }

    /**
     * A script that dispatches on its first argument (`case "$COMMAND" in`) must know the subcommand a workflow step
     * gives it, directly or through the recipe of a Makefile target the step calls (`make storm` runs
     * `k8s/kind.sh storm`): a typo would only show on GitHub, as the script's usage text and exit 2.
     */
    @Test
    void everySubcommandAWorkflowOrItsMakeTargetsGiveAScriptIsOneTheScriptHas() {
        List<String> lines = new ArrayList<>();
        for (Path file : Repo.workflowFiles()) {
            for (String run : Repo.runScripts(Repo.yaml(file))) {
                lines.addAll(run.lines().toList());
                Matcher make = MAKE.matcher(run);
                while (make.find()) {
                    for (String word : make.group(1).trim().split("\\s+")) {
                        lines.addAll(recipe(word));
                    }
                }
            }
        }
        List<String> checked = new ArrayList<>();
        Pattern call = Pattern.compile("(?<![\\w./-])((?:scripts|k8s)/[\\w.-]+\\.sh)\\s+([a-z][a-z0-9-]*)");
        for (String line : lines) {
            Matcher matcher = call.matcher(line);
            while (matcher.find()) {
                Set<String> subcommands = subcommands(matcher.group(1));
                if (subcommands.isEmpty()) {
                    continue; // takes files or options, not a subcommand
                }
                checked.add(matcher.group(1) + " " + matcher.group(2));
                assertTrue(subcommands.contains(matcher.group(2)),
                        "`" + line.strip() + "`: " + matcher.group(1) + " has no subcommand " + matcher.group(2) + " " + subcommands);
            }
        }
        assertTrue(checked.contains("k8s/kind.sh up") && checked.contains("scripts/stack.sh db-up"), checked.toString());
    }

    /** The recipe lines of a Makefile target ($(TEST_STACK) expanded to the script it names). */
    private static List<String> recipe(String target) {
        List<String> recipe = new ArrayList<>();
        boolean in = false;
        for (String line : Repo.read("Makefile").lines().toList()) {
            if (line.startsWith(target + ":")) {
                in = true;
            } else if (in && line.startsWith("\t")) {
                recipe.add(line.replace("$(TEST_STACK)", "scripts/stack.sh"));
            } else if (in) {
                break;
            }
        }
        return recipe;
    }

    /** The labels of a script's `case "$COMMAND" in` dispatch; empty when it has none. */
    private static Set<String> subcommands(String script) {
        String text = Repo.read(script);
        int dispatch = text.lastIndexOf("case \"$COMMAND\" in");
        Set<String> labels = new java.util.TreeSet<>();
        if (dispatch < 0) {
            return labels;
        }
        Matcher label = Pattern.compile("(?m)^\\s+([a-z][a-z0-9|-]*)\\)").matcher(text.substring(dispatch));
        while (label.find()) {
            labels.addAll(List.of(label.group(1).split("\\|")));
        }
        return labels;
    }

    @Test
    void theKindClusterIsCreatedUnderTheNameKindShLoadsImagesInto() {
        JsonNode e2e = Repo.yaml(".github/workflows/e2e-kind.yml");
        JsonNode kind = Repo.steps(e2e).stream()
                .filter(step -> step.path("uses").asText().startsWith("helm/kind-action@")).findFirst().orElseThrow();
        String cluster = kind.path("with").path("cluster_name").asText("chart-testing");
        assertEquals(cluster, e2e.path("env").path("CLUSTER").asText(),
                "k8s/kind.sh would `kind load` into another cluster than the one kind-action created");
        assertTrue(Files.exists(Repo.ROOT.resolve(kind.path("with").path("config").asText())));
    }

    /**
     * The dependency and image scans fail on a fixable HIGH or CRITICAL advisory in what this repository
     * builds (its dependencies, and each image it builds is also scanned), and report the chart's third-party images
     * exactly as values.yaml names them, so that a tag bumped in the chart is the tag scanned.
     */
    @Test
    void theSecurityScanFailsOnOurFindingsAndScansTheImagesTheChartDeploys() {
        List<String> runs = Repo.runScripts(Repo.yaml(".github/workflows/security-scan.yml"));
        String all = String.join("\n", runs);
        assertTrue(runs.stream().anyMatch(r -> r.contains("trivy fs") && r.contains("--exit-code 1")
                && r.contains("--severity HIGH,CRITICAL")), "no failing dependency scan: " + all);
        Matcher built = Pattern.compile("-t \"?device-identity/(\\$service|[\\w-]+):scan").matcher(all);
        Set<String> images = new java.util.TreeSet<>();
        while (built.find()) {
            images.add(built.group(1));
        }
        assertEquals(Set.of("$service", "loadtest"), images, all);
        assertTrue(all.contains("for service in auth-service registration-service; do"), all);
        String imageScan = runs.stream().filter(r -> r.contains("trivy image") && r.contains("--exit-code 1")).findFirst()
                .orElseThrow(() -> new AssertionError("no failing image scan: " + all));
        for (String image : List.of("auth-service", "registration-service", "loadtest")) {
            assertTrue(imageScan.contains(image), image + " is built but not scanned: " + imageScan);
        }
        JsonNode values = Repo.yaml("helm/device-identity/values.yaml");
        String reported = runs.stream().filter(r -> r.contains("trivy image") && r.contains("--exit-code 0")).findFirst()
                .orElseThrow(() -> new AssertionError("the chart's images are not scanned: " + all));
        for (JsonNode image : List.of(values.at("/emqx/image"), values.at("/pgbouncer/image"), values.at("/postgresql/image"),
                values.at("/pgbouncer/exporter/image"), values.at("/tests/image"))) {
            // Docker Hub images are named in full (docker.io/..., library/ for official ones), as trivy pulls them.
            String reference = image.path("repository").asText() + ":" + image.path("tag").asText();
            assertTrue(reported.matches("(?s).*[\\s/]" + java.util.regex.Pattern.quote(reference) + "[\\s;].*"),
                    "values.yaml deploys " + reference + ", which the scan does not name: " + reported);
        }
    }

    /** run: scripts, and with: inputs that name files (paths, configs). */
    private static List<String> texts(JsonNode workflow) {
        List<String> texts = new ArrayList<>(Repo.runScripts(workflow));
        for (JsonNode step : Repo.steps(workflow)) {
            step.path("with").fields().forEachRemaining(input -> texts.add(input.getValue().asText()));
        }
        return texts;
    }
}
