package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * Every verdict of k8s/e2e-checks.sh runs here against recorded cluster outputs (src/test/resources/e2e-samples/
 * VERDICT/SAMPLE, read through the script's E2E_RECORDED mode instead of kubectl): each pass-* sample must pass,
 * each fail-* sample must fail, with the message in its expected-failure file, so a verdict that passes on a broken
 * run fails the build. A kubectl on PATH that always fails makes sure the recorded mode never reaches a cluster.
 */
class E2eChecksTest {

    static final Path SCRIPT = Repo.ROOT.resolve("k8s/e2e-checks.sh");
    static final Path SAMPLES = Repo.ROOT.resolve("build-checks/src/test/resources/e2e-samples");
    private static final Pattern COMMAND = Pattern.compile("(?m)^  ([a-z0-9-]+)\\) [a-z0-9_]+ ;;$");
    private static final Pattern WORKFLOW_CALL = Pattern.compile("k8s/e2e-checks\\.sh\\s+([a-z0-9-]+)");

    /** The failing samples the issue names; each must exist (and fail). */
    private static final Map<String, List<String>> REQUIRED_FAILURES = Map.of(
            "loadtest-report", List.of("fail-no-allows", "fail-timeouts-only", "fail-pending-devices", "fail-500"),
            "no-500", List.of("fail-500-in-previous-container", "fail-zero-auth-service-pods"),
            "pgbouncer-refusals", List.of("fail-zero-pods", "fail-refusal-in-previous-container"),
            "storm-connected", List.of("fail-devices-left-out", "fail-zero-emqx-pods"),
            "storm-rate", List.of("fail-no-bcrypt-measured", "fail-capacity-under-one-connect-per-pod"),
            "reconnect-storm", List.of("fail-devices-not-reconnected", "fail-reconnected-without-fast-path",
                    "fail-500-during-reconnects", "fail-pgbouncer-refused"),
            "revoke-kicks", List.of("fail-still-connected-after-bound", "fail-back-after-revoke",
                    "fail-emqx-api-unreachable", "fail-no-write-token"),
            "rekey-kicks", List.of("fail-still-connected-after-bound", "fail-back-with-old-password"),
            "db-failover", List.of("fail-acknowledged-write-lost", "fail-revocation-lost", "fail-revoked-device-allowed",
                    "fail-500-during-gap", "fail-503-without-reason", "fail-primary-not-replaced",
                    "fail-writes-never-back", "fail-no-write-acknowledged"));

    static Set<String> verdicts() {
        Set<String> verdicts = new LinkedHashSet<>();
        Matcher matcher = COMMAND.matcher(Repo.read("k8s/e2e-checks.sh"));
        while (matcher.find()) {
            verdicts.add(matcher.group(1));
        }
        return verdicts;
    }

    @Test
    void everyVerdictHasPassingAndFailingSamples() throws IOException {
        Set<String> verdicts = verdicts();
        assertEquals(Set.of("no-500", "pgbouncer-refusals", "storm-rate", "storm-connected", "reconnect-storm",
                "loadtest-report", "revoke-kicks", "rekey-kicks", "db-failover"), verdicts);
        for (String verdict : verdicts) {
            List<String> samples = samples(verdict);
            assertTrue(samples.stream().anyMatch(s -> s.startsWith("pass-")), verdict + " has no passing sample");
            assertTrue(samples.stream().anyMatch(s -> s.startsWith("fail-")), verdict + " has no failing sample");
            assertTrue(samples.containsAll(REQUIRED_FAILURES.get(verdict)), verdict + ": " + samples);
            for (String sample : samples) {
                assertTrue(sample.startsWith("pass-") || sample.startsWith("fail-"), verdict + "/" + sample);
                assertEquals(sample.startsWith("fail-"), Files.exists(SAMPLES.resolve(verdict).resolve(sample).resolve("expected-failure")),
                        verdict + "/" + sample + ": a failing sample (only) names its expected failure");
            }
        }
    }

    @TestFactory
    Stream<DynamicTest> everyVerdictPassesItsPassingSamplesAndFailsItsFailingOnes() throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (String verdict : verdicts()) {
            for (String sample : samples(verdict)) {
                tests.add(dynamicTest(verdict + "/" + sample, () -> judge(verdict, sample)));
            }
        }
        return tests.stream();
    }

    @Test
    void everyVerdictTheWorkflowsCallExists() {
        Set<String> called = new LinkedHashSet<>();
        for (Path file : Repo.workflowFiles()) {
            for (String run : Repo.runScripts(Repo.yaml(file))) {
                Matcher call = WORKFLOW_CALL.matcher(run);
                while (call.find()) {
                    called.add(call.group(1));
                    assertTrue(verdicts().contains(call.group(1)), Repo.relative(file) + " calls k8s/e2e-checks.sh " + call.group(1));
                }
            }
        }
        // The e2e run judges with all of them, the node-loss reconnect storm included.
        assertEquals(verdicts(), called);
    }

    @Test
    void theReconnectVerdictDeletesTheEmqxPodHoldingTheMostDevices() throws Exception {
        Result result = run("reconnect-storm", "pass-reconnected-through-fast-path");
        assertEquals(0, result.exit(), result.output());
        assertEquals(List.of("delete pod device-identity-emqx-0"), result.actions());
        assertTrue(result.output().contains("every device must be back within 51 s"), result.output());
    }

    /**
     * About 100 devices reconnecting within a second onto a few database-lane threads meet some 503 refusals by
     * design (emqtt's timer retries them): those pass, any other 5xx fails.
     */
    @Test
    void theReconnectVerdictAcceptsDesigned503sAndFailsOnA500() throws Exception {
        Result designed = run("reconnect-storm", "pass-designed-503s-during-reconnects");
        assertEquals(0, designed.exit(), designed.output());
        assertTrue(designed.output().contains("41 designed 503 refusals"), designed.output());
        Result broken = run("reconnect-storm", "fail-500-during-reconnects");
        assertNotEquals(0, broken.exit(), broken.output());
        assertTrue(broken.output().contains("FAILED: 3 5xx answers other than 503"), broken.output());
    }

    /**
     * The failover verdict reports what it measured, the gap included: the seconds from deleting the primary to the
     * end of the last refused write, and the 503 reasons met meanwhile.
     */
    @Test
    void theFailoverVerdictReportsTheGapAndTheReasonsOfItsRefusals() throws Exception {
        Result result = run("db-failover", "pass-primary-replaced-nothing-acknowledged-lost");
        assertEquals(0, result.exit(), result.output());
        assertTrue(result.output().contains("45 registrations and 15 revocations acknowledged: 0 lost, 0 not revoked"),
                result.output());
        assertTrue(result.output().contains("503 reasons: backend_unavailable=34; 0 other 5xx"), result.output());
        assertTrue(result.output().contains("writes refused for 9.0 s after the kill"), result.output());
        assertEquals(List.of(), result.actions(), "recorded: the judge only, nothing deleted");
    }

    /** A storm device refused on its first CONNECT is lost (emqtt-bench 0.6.2): the failure says how auth-service refused. */
    @Test
    void aStormWithDevicesLeftOutNamesAuthServices503sAndTheirReasons() throws Exception {
        Result result = run("storm-connected", "fail-devices-left-out");
        assertNotEquals(0, result.exit(), result.output());
        assertTrue(result.output().contains("auth-service answered 10 requests with 503; reasons: deadline=2 overload=8"),
                result.output());
    }

    /** 2 threads / 85 ms = 23.5 bcrypt checks/s; half of it over the Job's 3 pods is 3 connects/s each (rounded down). */
    @Test
    void theStormRateIsHalfTheMeasuredBcryptCapacitySplitOverTheJobsPods() throws Exception {
        Result result = run("storm-rate", "pass-half-the-measured-capacity");
        assertEquals(0, result.exit(), result.output());
        List<String> lines = result.output().strip().lines().toList();
        assertEquals("3", lines.get(lines.size() - 1), result.output());
        assertTrue(result.output().contains("3 pods x 3 connects/s"), result.output());
    }

    @Test
    void theRevocationVerdictsHoldARealMqttSessionAndEndIt() throws Exception {
        for (String verdict : List.of("revoke-kicks", "rekey-kicks")) {
            String id = "e2e-" + verdict.replace("-kicks", "") + "-probe";
            Result result = run(verdict, "pass-dropped-within-bound");
            assertEquals(0, result.exit(), result.output());
            assertEquals(List.of("start mqtt session " + id, "stop mqtt session " + id), result.actions());
            assertTrue(result.output().contains("dropped within 2 s (bound 5 s)"), result.output());
        }
        String job = Repo.read("k8s/jobs/mqtt-session-job.yaml");
        assertTrue(job.contains("\"-i\", \"DEVICE_ID\"") && job.contains("\"-P\", \"DEVICE_PASSWORD\""), job);
    }

    /**
     * The kick bound measures EMQX, not the probe: it runs from registration-service's answer, so a call whose
     * port-forward took 4 s and a client dropped 2 s after the answer is within the 5 s bound.
     */
    @Test
    void theKickBoundRunsFromTheRevocationsAnswer() throws Exception {
        Result result = run("revoke-kicks", "pass-bound-runs-from-the-answer");
        assertEquals(0, result.exit(), result.output());
        assertTrue(result.output().contains("dropped within 2 s (bound 5 s)"), result.output());
    }

    /**
     * The session's client speaks MQTT over TLS as a device does (the kind release has no 1883): port 8883, EMQX's
     * certificate checked against the mounted ca.crt of EMQX's certificate Secret, host name included (no
     * --insecure). The Secret's name starts with the host's, so mqtt_session_start's rename for another RELEASE
     * carries both.
     */
    @Test
    void theRevocationVerdictsMqttClientSpeaksTlsAgainstEmqxsCa() {
        com.fasterxml.jackson.databind.JsonNode pod = Repo.yaml(Repo.ROOT.resolve("k8s/jobs/mqtt-session-job.yaml"))
                .path("spec").path("template").path("spec");
        com.fasterxml.jackson.databind.JsonNode container = pod.path("containers").get(0);
        List<String> args = new ArrayList<>();
        container.path("args").forEach(a -> args.add(a.asText()));
        assertEquals("device-identity-emqx", args.get(args.indexOf("-h") + 1), args.toString());
        assertEquals("8883", args.get(args.indexOf("-p") + 1), args.toString());
        assertFalse(args.contains("--insecure"), args.toString());
        String ca = args.get(args.indexOf("--cafile") + 1);
        String volume = null;
        for (com.fasterxml.jackson.databind.JsonNode mount : container.path("volumeMounts")) {
            if (ca.equals(mount.path("mountPath").asText() + "/ca.crt")) {
                volume = mount.path("name").asText();
            }
        }
        assertTrue(volume != null, ca + " is not on a volume of " + container.path("name"));
        for (com.fasterxml.jackson.databind.JsonNode v : pod.path("volumes")) {
            if (v.path("name").asText().equals(volume)) {
                assertEquals("device-identity-emqx-tls", v.path("secret").path("secretName").asText());
                assertEquals("ca.crt", v.path("secret").path("items").get(0).path("key").asText());
            }
        }
        assertTrue(Repo.read("k8s/e2e-checks.sh").contains("-e \"s/device-identity-emqx/$RELEASE-emqx/\""),
                "mqtt_session_start renames the host (and with it the Secret) for RELEASE");
    }

    private static void judge(String verdict, String sample) throws Exception {
        Result result = run(verdict, sample);
        assertFalse(result.output().contains("kubectl must not be called"), result.output());
        if (sample.startsWith("pass-")) {
            assertEquals(0, result.exit(), verdict + " failed its passing sample " + sample + ":\n" + result.output());
        } else {
            String expected = Files.readString(SAMPLES.resolve(verdict).resolve(sample).resolve("expected-failure")).strip();
            assertNotEquals(0, result.exit(), verdict + " passed its failing sample " + sample + ":\n" + result.output());
            assertTrue(result.output().contains("FAILED: ") && result.output().contains(expected),
                    verdict + " failed " + sample + " for another reason than \"" + expected + "\":\n" + result.output());
        }
    }

    record Result(int exit, String output, List<String> actions) {
    }

    static Result run(String verdict, String sample) throws Exception {
        Path dir = SAMPLES.resolve(verdict).resolve(sample);
        Path work = Files.createTempDirectory("e2e-checks");
        Path bin = Files.createDirectories(work.resolve("bin"));
        Path kubectl = bin.resolve("kubectl");
        Files.writeString(kubectl, "#!/bin/sh\necho 'kubectl must not be called with recorded inputs' >&2\nexit 97\n");
        Files.setPosixFilePermissions(kubectl, PosixFilePermissions.fromString("rwxr-xr-x"));
        Path actions = work.resolve("actions");
        ProcessBuilder builder = new ProcessBuilder("bash", SCRIPT.toString(), verdict).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("PATH", bin + ":" + env.get("PATH"));
        env.put("E2E_RECORDED", dir.toString());
        env.put("E2E_ACTIONS", actions.toString());
        env.put("REPORT_DIR", dir.toString());
        env.put("LOADTEST", Repo.loadtestCommand());
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), verdict + "/" + sample + " did not finish:\n" + output);
        List<String> done = Files.exists(actions) ? Files.readAllLines(actions) : List.of();
        return new Result(process.exitValue(), output, done);
    }

    private static List<String> samples(String verdict) throws IOException {
        Path dir = SAMPLES.resolve(verdict);
        assertTrue(Files.isDirectory(dir), "no samples for " + verdict + " in " + Repo.relative(SAMPLES));
        try (Stream<Path> entries = Files.list(dir)) {
            return entries.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
