package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.stream.Stream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The verdict of {@code CHAOS_ONLY=failover make chaos} (scripts/chaos/analyse.py, judge_failover) against a recorded
 * run: {@code pass-run} is a real run's output (src/test/resources/failover-samples/README.md says which, and what it
 * broke); each {@code fail-*} sample is that run with one defect laid over it, and must fail for the promise its
 * {@code expected-failure} names.
 */
class FailoverVerdictTest {

    static final Path SAMPLES = Repo.ROOT.resolve("build-checks/src/test/resources/failover-samples");
    static final Path RECORDED_RUN = SAMPLES.resolve("pass-run");
    /** chaos.sh's arguments for the phase (CHAOS_FAILOVER_GOAL 15 s). */
    static final List<String> FAILOVER = List.of("--failover", "{run}/failover.jsonl", "--failover-named",
            "--failover-goal", "15", "--expected-faults", "failover", "--no-abuse", "--no-adversary");

    /** A broken promise of each kind the failover phase makes must have a failing sample. */
    private static final List<String> REQUIRED_FAILURES = List.of("fail-acknowledged-put-lost",
            "fail-acknowledged-delete-not-revoked", "fail-revoked-device-allowed", "fail-other-5xx",
            "fail-breaker-never-closed", "fail-overload-in-a-gap");

    @Test
    void everyBrokenPromiseHasAFailingSample() throws IOException {
        List<String> samples = samples();
        assertTrue(samples.contains("pass-run"), "the recorded run is missing: " + samples);
        assertTrue(samples.containsAll(REQUIRED_FAILURES), "missing failing samples: " + REQUIRED_FAILURES.stream()
                .filter(s -> !samples.contains(s)).toList());
    }

    /**
     * The recorded run is judged as it went: every promise passes except those its {@code broken} file lists (what
     * that run really broke, README.md says why), and each of those is reported broken.
     */
    @Test
    void theRecordedRunIsJudgedAsItWent() throws Exception {
        ChaosVerdictTest.Result result = ChaosVerdictTest.analyse(RECORDED_RUN, null, FAILOVER);
        List<String> broken = Files.readAllLines(RECORDED_RUN.resolve("broken")).stream().map(String::strip)
                .filter(line -> !line.isEmpty()).toList();
        assertEquals(broken.isEmpty() ? 0 : 1, result.exit(), result.output());
        for (String line : result.output().split("\n")) {
            if (line.startsWith("FAIL ")) {
                assertTrue(broken.stream().anyMatch(line.substring(5)::startsWith), "not recorded as broken: " + line);
            }
        }
        for (String promise : broken) {
            assertTrue(result.output().contains("\nFAIL " + promise), promise + " was not reported broken:\n"
                    + result.output());
        }
        assertTrue(result.output().contains("\nPASS failover: no acknowledged write lost"), result.output());
        assertTrue(result.output().contains("\nPASS failover: no device revoked before the kill ever allowed"),
                result.output());
    }

    @TestFactory
    Stream<DynamicTest> eachFailingSampleFailsForItsStatedReason() throws IOException {
        return ChaosVerdictTest.failingSamples(SAMPLES, RECORDED_RUN, FAILOVER);
    }

    private static List<String> samples() throws IOException {
        return ChaosVerdictTest.samples(SAMPLES);
    }
}
