package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.DynamicTest.dynamicTest;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;
import java.util.zip.GZIPInputStream;

import org.junit.jupiter.api.DynamicTest;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestFactory;

/**
 * The verdict of {@code make chaos} (scripts/chaos/analyse.py) runs here against a recorded run. {@code pass-full-run}
 * is the output of a real {@code make chaos} (src/test/resources/chaos-samples/README.md says which); each
 * {@code fail-*} sample is that run with one recorded defect laid over it: a file of the same name replaces the
 * run's, a {@code NAME.append} file adds lines to it. The passing run must pass; each failing one must fail, and for
 * the promise its {@code expected-failure} names, so that a verdict that waves a broken run through fails the build.
 */
class ChaosVerdictTest {

    static final Path ANALYSE = Repo.ROOT.resolve("scripts/chaos/analyse.py");
    static final Path SAMPLES = Repo.ROOT.resolve("build-checks/src/test/resources/chaos-samples");
    static final Path RECORDED_RUN = SAMPLES.resolve("pass-full-run");

    /** A broken promise of each kind the issue lists must have a failing sample. */
    private static final List<String> REQUIRED_FAILURES = List.of("fail-5xx-other-than-503", "fail-acknowledged-put-lost",
            "fail-acknowledged-delete-not-revoked", "fail-duplicated-row", "fail-secret-in-log",
            "fail-slow-recovery-after-postgres-crash", "fail-unanswered-while-ready-on-sigterm",
            "fail-cut-mid-answer-on-sigterm", "fail-bulkhead-broken", "fail-memory-unbounded",
            "fail-normal-client-refused", "fail-idle-connections-not-held", "fail-fault-window-missing",
            "fail-hostile-body-stored", "fail-right-token-refused-under-flood", "fail-device-locked-out",
            "fail-flood-starves-fast-path", "fail-spray-starves-cold-logins", "fail-spray-baseline-empty",
            "fail-spray-baseline-too-small", "fail-adversary-5xx", "fail-cold-logins-not-back-after-expensive-rows");

    @Test
    void everyBrokenPromiseHasAFailingSample() throws IOException {
        List<String> samples = samples();
        assertTrue(samples.contains("pass-full-run"), "the recorded run is missing: " + samples);
        assertTrue(samples.containsAll(REQUIRED_FAILURES), "missing failing samples: " + REQUIRED_FAILURES.stream()
                .filter(s -> !samples.contains(s)).toList());
        for (String sample : samples) {
            assertEquals(sample.startsWith("fail-"), Files.exists(SAMPLES.resolve(sample).resolve("expected-failure")),
                    sample + ": a failing sample (only) names its expected failure");
        }
    }

    @Test
    void theRecordedRunKeepsEveryPromise() throws Exception {
        Result result = analyse(RECORDED_RUN, null);
        assertEquals(0, result.exit(), result.output());
        assertFalse(result.output().contains("\nFAIL "), result.output());
        assertTrue(result.output().contains("verdict: every promise kept"), result.output());
    }

    @TestFactory
    Stream<DynamicTest> eachFailingSampleFailsForItsStatedReason() throws IOException {
        return failingSamples(SAMPLES, RECORDED_RUN, List.of());
    }

    /** Each {@code fail-*} sample under {@code samples}, laid over {@code run}, fails for its expected failure. */
    static Stream<DynamicTest> failingSamples(Path samples, Path run, List<String> more) throws IOException {
        List<DynamicTest> tests = new ArrayList<>();
        for (String sample : samples(samples)) {
            if (sample.startsWith("fail-")) {
                tests.add(dynamicTest(sample, () -> {
                    Path defect = samples.resolve(sample);
                    String expected = Files.readString(defect.resolve("expected-failure")).strip();
                    Result result = analyse(run, defect, more);
                    assertEquals(1, result.exit(), sample + " passed:\n" + result.output());
                    assertTrue(result.output().contains("\nFAIL " + expected), sample + " failed for another reason"
                            + " than \"" + expected + "\":\n" + result.output());
                }));
            }
        }
        return tests.stream();
    }

    record Result(int exit, String output) {
    }

    /** The recorded run, with {@code defect} (when given) laid over it, judged by analyse.py as chaos.sh calls it. */
    static Result analyse(Path run, Path defect) throws Exception {
        return analyse(run, defect, List.of());
    }

    /** The same, with further arguments of chaos.sh's call (a phase that runs only when named). */
    static Result analyse(Path run, Path defect, List<String> more) throws Exception {
        Path work = Files.createTempDirectory("chaos-verdict");
        copyTree(run, work);
        if (defect != null) {
            layOver(defect, work);
        }
        ProcessBuilder builder = new ProcessBuilder("python3", ANALYSE.toString(),
                "--events", work.resolve("events.jsonl").toString(), "--faults", work.resolve("faults.jsonl").toString(),
                "--abuse", work.resolve("abuse.json").toString(), "--storm", work.resolve("storm.jsonl").toString(),
                "--adversary", work.resolve("adversary.jsonl").toString(),
                "--secrets", work.resolve("secrets.txt").toString(), "--logs", work.resolve("logs").toString(),
                "--rows", work.resolve("rows.txt").toString(), "--duplicates", work.resolve("duplicates.txt").toString(),
                "--out", work.resolve("out").toString(), "--elapsed", "1", "--recovery-goal", "5",
                "--memory-limit-mib", "512").redirectErrorStream(true);
        List<String> command = new ArrayList<>(builder.command());
        for (String argument : more) {
            command.add(argument.replace("{run}", work.toString()));
        }
        builder.command(command);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), "analyse.py did not finish:\n" + output);
        assertTrue(Files.exists(work.resolve("out/summary.json")) && Files.exists(work.resolve("out/report.html")),
                "no summary.json/report.html:\n" + output);
        return new Result(process.exitValue(), "\n" + output);
    }

    private static void copyTree(Path from, Path to) throws IOException {
        try (Stream<Path> files = Files.walk(from)) {
            for (Path file : files.toList()) {
                Path target = to.resolve(from.relativize(file).toString());
                if (Files.isDirectory(file)) {
                    Files.createDirectories(target);
                } else {
                    Files.copy(file, target);
                }
            }
        }
    }

    /** A defect's files replace the run's (a compressed twin of the run's goes), its NAME.append files extend them. */
    private static void layOver(Path defect, Path work) throws IOException {
        try (Stream<Path> files = Files.walk(defect)) {
            for (Path file : files.filter(Files::isRegularFile).toList()) {
                String relative = defect.relativize(file).toString();
                if (relative.equals("expected-failure")) {
                    continue;
                }
                boolean append = relative.endsWith(".append");
                Path target = work.resolve(append ? relative.substring(0, relative.length() - ".append".length()) : relative);
                Files.createDirectories(target.getParent());
                byte[] before = append ? recorded(target) : new byte[0];
                Files.deleteIfExists(Path.of(target + ".gz"));
                Files.write(target, before);
                Files.write(target, Files.readAllBytes(file), StandardOpenOption.APPEND);
            }
        }
    }

    private static byte[] recorded(Path file) throws IOException {
        if (Files.exists(file)) {
            return Files.readAllBytes(file);
        }
        try (InputStream in = new GZIPInputStream(Files.newInputStream(Path.of(file + ".gz")))) {
            return in.readAllBytes();
        }
    }

    private static List<String> samples() throws IOException {
        return samples(SAMPLES);
    }

    static List<String> samples(Path directory) throws IOException {
        try (Stream<Path> entries = Files.list(directory)) {
            return entries.filter(Files::isDirectory).map(p -> p.getFileName().toString()).sorted().toList();
        }
    }
}
