package io.deviceidentity.loadtest.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;

class ComparisonTest {

    @TempDir
    Path dir;

    private Path summary(String name, String json) throws Exception {
        Path file = dir.resolve(name).resolve("summary.json");
        Files.createDirectories(file.getParent());
        Files.writeString(file, json);
        return file;
    }

    private static String run(String settings, double steady, double whole, String wasted) {
        return """
                {"settings": {%s},
                 "steady_state": {"goodput": %s, "start_s": 22, "end_s": 72, "clamped": false,
                   "wasted_work": %s, "latency_allow": {"count": 3, "p99_ms": 900.0},
                   "latency_503": {"count": 0, "p99_ms": 0}, "emqx_queue_peak": 120},
                 "whole_run": {"goodput": %s, "max_generator_lag_ms": 15, "status5xx_other": 2},
                 "seconds": [{"goodput": 1, "offered": 2}]}
                """.formatted(settings, steady, wasted, whole);
    }

    @Test
    void oneRowPerRunAgainstCapacityAndTheCurveBySeries() throws Exception {
        Path capacity = summary("capacity", """
                {"settings": {"model": "closed-loop"}, "steady_state": {"goodput": 10.0}, "seconds": []}""");
        Map<String, Path> runs = new LinkedHashMap<>();
        runs.put("protected-8x", summary("p8", run("\"rate\": 80.0", 9.0, 9.5,
                "{\"fraction\": 0.05, \"missing\": [], \"problem\": null}")));
        runs.put("unprotected-8x", summary("u8", run("\"rate\": 80.0", 0.0, 3.5,
                "{\"fraction\": null, \"missing\": [\"identity_bcrypt_wasted_total\"], \"problem\": \"refused\"}")));
        runs.put("protected-step-1x-to-8x", summary("s", run("\"rate\": 10.0, \"step_at\": \"20s\", \"step_rate\": 80.0",
                8.0, 8.5, "{\"fraction\": 0.0, \"missing\": [\"identity_bcrypt_wasted_total\"], \"problem\": null}")));

        Comparison comparison = Comparison.load(capacity, runs);
        List<List<String>> rows = comparison.rows();

        assertEquals(Comparison.HEADER, rows.get(0));
        assertEquals(List.of("protected-8x", "8.0", "0.90", "0.95", "5", "900", "-", "120", "15", "2"), rows.get(1));
        assertEquals(List.of("unprotected-8x", "8.0", "0.00", "0.35", "-", "900", "-", "120", "15", "2"), rows.get(2));
        assertEquals("1.0 -> 8.0", rows.get(3).get(1));
        assertTrue(comparison.notes().stream().anyMatch(n -> n.contains("unprotected-8x: wasted work not measured")));
        assertTrue(comparison.notes().stream().anyMatch(n -> n.contains("protected-step-1x-to-8x: service metric")));

        comparison.write(dir.resolve("out"));
        JsonNode data = Json.MAPPER.readTree(dir.resolve("out/comparison.json").toFile());
        assertEquals("protected", data.path("runs").path("protected-8x").path("series").asText());
        assertEquals(0.9, data.path("runs").path("protected-8x").path("steady_goodput_per_capacity").asDouble());
        assertTrue(data.path("runs").path("protected-step-1x-to-8x").path("step").asBoolean(), "steps stay off the curve");
        assertTrue(Files.readString(dir.resolve("out/index.html")).contains("<canvas id=\"curve\">"));
    }

    @Test
    void theSeriesIsTheLabelWithoutItsLoad() {
        assertEquals("protected-pool-64", Comparison.series("protected-pool-64-8x"));
        assertEquals("protected", Comparison.series("protected-12x"));
        assertEquals("odd", Comparison.series("odd"));
    }
}
