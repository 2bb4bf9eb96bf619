package io.deviceidentity.loadtest.fastpath;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.deviceidentity.loadtest.report.Json;

/** What both storms read from a summary.json and how their table cells write numbers. */
final class StormCells {

    private StormCells() {
    }

    /** The runs' summary.json files, read, in the order given. */
    static Map<String, JsonNode> read(Map<String, Path> files) throws IOException {
        Map<String, JsonNode> runs = new LinkedHashMap<>();
        for (Map.Entry<String, Path> run : files.entrySet()) {
            runs.put(run.getKey(), Json.MAPPER.readTree(run.getValue().toFile()));
        }
        return runs;
    }

    static double goodput(JsonNode run) {
        return run.path("steady_state").path("goodput").asDouble();
    }

    static String lag(JsonNode run) {
        return run.path("whole_run").path("max_generator_lag_ms").asText("-");
    }

    /** RATE against the bcrypt capacity, e.g. {@code 8.0x}. */
    static String times(double rate, double capacity) {
        return capacity > 0 ? String.format("%.1fx", rate / capacity) : "-";
    }

    static String share(JsonNode part) {
        JsonNode share = part.path("first_attempt_success_share");
        return share.isNumber() ? String.format("%.1f %%", share.asDouble() * 100) : "-";
    }

    static String latencyCell(JsonNode latency, String field) {
        return latency.path("count").asLong() == 0 ? "-" : fmt(latency.path(field).asDouble());
    }

    /** Answers other than an allow in the steady state, e.g. {@code 503 overload 12}; "-" when there were none. */
    static String notAllowed(JsonNode outcomes) {
        List<String> cells = new ArrayList<>();
        outcomes.fields().forEachRemaining(e -> {
            if (!e.getKey().equals("200 allow") && e.getValue().asLong() > 0) {
                cells.add(e.getKey() + " " + e.getValue().asLong());
            }
        });
        return cells.isEmpty() ? "-" : String.join(", ", cells);
    }

    static String fmt(double value) {
        if (Double.isNaN(value)) {
            return "-";
        }
        return value >= 100 ? String.format("%.0f", value) : value >= 10 ? String.format("%.1f", value)
                : String.format("%.2f", value);
    }
}
