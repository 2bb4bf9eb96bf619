package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * docs/sizing.md's numbers do not drift from `make size`: its example block is exactly what
 * scripts/size.py prints with the documented figures, and `make size` passes its arguments to the real script.
 */
class SizingDocTest {

    @Test
    void theExampleIsWhatTheScriptPrintsWithTheDocumentedFigures() throws Exception {
        String page = Repo.read("docs/sizing.md");
        int section = page.indexOf("## An example");
        int begin = page.indexOf("```\n", section) + 4;
        int end = page.indexOf("```", begin);
        assertTrue(section >= 0 && begin > section && end > begin, "docs/sizing.md has no example block");
        String printed = run("python3", "scripts/size.py", "--devices", "1000000", "--window", "900",
                "--bench", "/nonexistent-bench-output");
        assertEquals(printed, page.substring(begin, end), "docs/sizing.md's example and `make size` disagree");
        assertTrue(page.contains("13.8 allows/s per\ncore") && page.contains("1 627 allows/s per\ncore"),
                "the page's headline figures are the script's documented ones");
    }

    @Test
    void makeSizePassesItsVariablesToTheScript() throws Exception {
        String printed = run("make", "-s", "size", "DEVICES=5000", "WINDOW=60", "KNOWN=0.5");
        assertTrue(printed.startsWith("5000 devices in 60 s, 50 % known"), printed);
        assertTrue(printed.contains("authService.autoscaling.maxReplicas="), printed);
    }

    /** The page's table of what follows from the CPU limit is what the chart's formulas (size.py) give. */
    @Test
    void theEmqxPoolPerPodSizeInThePageIsTheChartsDerivation() throws Exception {
        String page = Repo.read("docs/sizing.md");
        String row = page.lines().filter(l -> l.startsWith("| EMQX `pool_size` per node |")).findFirst().orElseThrow();
        List<String> cells = List.of(row.split("\\|"));
        List<String> sizes = List.of("0.25", "1", "2");
        for (int i = 0; i < sizes.size(); i++) {
            String pool = run("python3", "scripts/size.py", "--emqx-pool-for-cpu", sizes.get(i)).strip();
            assertEquals(pool, cells.get(3 + i).strip(), "pool_size for " + sizes.get(i) + " vCPU: " + row);
        }
    }

    /** `make size` reads the pod-size table of a bench output and judges each row by the page's goals. */
    @Test
    void measuredPodSizesArePrintedWithWhetherTheyHold(@org.junit.jupiter.api.io.TempDir java.nio.file.Path bench)
            throws Exception {
        pod(bench, "pod-0_25-capacity", "{ \"steady_state\" : { \"goodput\" : 2.5 } }");
        pod(bench, "pod-0_25-8x-pool-28", steady(0.42, 9000, 5));
        pod(bench, "pod-1-capacity", "{ \"steady_state\" : { \"goodput\" : 9.5 } }");
        pod(bench, "pod-1-8x-pool-8", steady(0.95, 900, 0));
        String printed = run("python3", "scripts/size.py", "--devices", "1000", "--window", "60", "--bench", bench.toString());
        assertTrue(printed.contains("  0.25 vCPU: capacity 2.50/s, behind 28 connections: 0.42 of capacity, p99 allow 9.0 s, 5 late -> does NOT hold"), printed);
        assertTrue(printed.contains("  1 vCPU: capacity 9.50/s, behind 8 connections: 0.95 of capacity, p99 allow 0.9 s, 0 late -> holds"), printed);
    }

    private static String steady(double ratio, double p99Ms, int late) {
        return "{ \"steady_state\" : { \"goodput\" : 1, \"goodput_per_capacity\" : " + ratio
                + ", \"late_answers_total\" : " + late + ", \"latency_allow\" : { \"count\" : 10, \"p99_ms\" : " + p99Ms + " } } }";
    }

    private static void pod(java.nio.file.Path bench, String run, String json) throws java.io.IOException {
        java.nio.file.Files.createDirectories(bench.resolve(run));
        java.nio.file.Files.writeString(bench.resolve(run).resolve("summary.json"), json);
    }

    private static String run(String... command) throws Exception {
        List<String> args = new ArrayList<>(List.of(command));
        Process process = new ProcessBuilder(args).directory(Repo.ROOT.toFile()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), String.join(" ", command) + " did not finish");
        assertEquals(0, process.exitValue(), output);
        return output;
    }
}
