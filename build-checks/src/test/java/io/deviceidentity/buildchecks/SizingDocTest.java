package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.testsupport.Markdown;

/**
 * docs/sizing.md's numbers do not drift from `make size`: its example block is exactly what
 * scripts/size.py prints with the figures of docs/figures.json, and `make size` passes its arguments to the real script.
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
    }

    /**
     * The figures sizing plans with are held once, in docs/figures.json; the performance page's table of current
     * figures lists each with the same value, command, date and commit, and the bcrypt cost is the services' own.
     */
    @Test
    void theSizingFiguresAreThePerformancePagesCurrentFiguresAndTheServicesCost() throws Exception {
        JsonNode figures = new ObjectMapper().readTree(Repo.read("docs/figures.json"));
        Map<String, List<String>> table = new HashMap<>();
        for (Markdown.Line row : Markdown.tableRows(Markdown.section(Repo.read("docs/benchmarks.md"), "## Current figures"))) {
            List<String> cells = Markdown.cells(row.text());
            table.put(cells.get(0), cells);
        }
        for (String name : List.of("cold_allows_per_core", "known_allows_per_core")) {
            JsonNode figure = figures.get(name);
            List<String> row = table.get(figure.get("measure").asText());
            assertTrue(row != null, "docs/benchmarks.md's current figures have no row \"" + figure.get("measure").asText()
                    + "\" (docs/figures.json, " + name + ")");
            String value = figure.get("value").decimalValue().stripTrailingZeros().toPlainString();
            assertTrue(row.get(1).replace(" ", "").startsWith(value), name + " is " + value + " in docs/figures.json, "
                    + "the performance page says " + row.get(1));
            assertEquals("`" + figure.get("command").asText() + "`", row.get(2), name + ": the command");
            assertEquals(figure.get("date").asText() + ", " + figure.get("commit").asText(), row.get(3),
                    name + ": the date and commit");
        }
        Matcher cost = Pattern.compile("DEFAULT_COST = (\\d+);")
                .matcher(Repo.read("identity-core/src/main/java/io/deviceidentity/credentials/Bcrypt.java"));
        assertTrue(cost.find(), "identity-core's Bcrypt.DEFAULT_COST was not found");
        assertEquals(cost.group(1), figures.get("bcrypt_cost").asText(),
                "docs/figures.json's bcrypt_cost is the cost the services hash with");
    }

    @Test
    void makeSizePassesItsVariablesToTheScript() throws Exception {
        String printed = run("make", "-s", "size", "DEVICES=5000", "WINDOW=60", "KNOWN=0.5", "AUTH_CPU=1500m",
                "EMQX_NODES=5", "PIPELINING=2", "PGBOUNCER_REPLICAS=3", "MAX_REPLICAS=7");
        assertTrue(printed.startsWith("5000 devices in 60 s, 50 % known"), printed);
        assertTrue(printed.contains("assumes: 1500m CPU per auth-service replica, its request: only the request is"
                + " guaranteed in a storm (AUTH_CPU=); 5 EMQX nodes (EMQX_NODES=), pipelining 2 (PIPELINING=);"
                + " 3 PgBouncer replicas (PGBOUNCER_REPLICAS=)"), printed);
        assertTrue(printed.contains("    minReplicas: 3\n    maxReplicas: 7\n"), printed);
        assertTrue(printed.contains("      cpu: 1500m\n"), printed);
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
