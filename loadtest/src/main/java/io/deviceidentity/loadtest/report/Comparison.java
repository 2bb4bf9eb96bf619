package io.deviceidentity.loadtest.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.function.Function;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * The side-by-side table of several runs of the same storm against one measured capacity, as text (what
 * {@code make bench} prints) and as an HTML page linking each run's own report. Reads the runs' summary.json, so it
 * also works on results copied from elsewhere.
 */
public final class Comparison {

    private final JsonNode capacity;
    private final Map<String, JsonNode> runs;
    private final Map<String, Path> runFiles;

    private Comparison(JsonNode capacity, Map<String, JsonNode> runs, Map<String, Path> runFiles) {
        this.capacity = capacity;
        this.runs = runs;
        this.runFiles = runFiles;
    }

    public static Comparison load(Path capacitySummary, Map<String, Path> runSummaries) throws IOException {
        Map<String, JsonNode> runs = new LinkedHashMap<>();
        for (Map.Entry<String, Path> run : runSummaries.entrySet()) {
            runs.put(run.getKey(), Json.MAPPER.readTree(run.getValue().toFile()));
        }
        return new Comparison(Json.MAPPER.readTree(capacitySummary.toFile()), runs, runSummaries);
    }

    public double capacity() {
        return capacity.path("totals").path("goodput").asDouble();
    }

    /** Rows of the table: a name and one cell per run. */
    public List<List<String>> rows() {
        double cap = capacity();
        List<List<String>> rows = new ArrayList<>();
        rows.add(header());
        rows.add(row("capacity (allows/s, closed loop, measured first)", t -> fmt(cap)));
        rows.add(row("offered (connect attempts/s)", t -> fmt(t.path("offered_rate").asDouble())));
        rows.add(row("  of which device retries", t -> Long.toString(t.path("retries").asLong())));
        rows.add(row("goodput (allows in time/s)", t -> fmt(t.path("goodput").asDouble())));
        rows.add(row("goodput / capacity", t -> cap <= 0 ? "-" : String.format("%.2f", t.path("goodput").asDouble() / cap)));
        rows.add(row("5xx answers (in time)", t -> Long.toString(t.path("status5xx").asLong())));
        rows.add(row("429 rate_limited", t -> Long.toString(t.path("rate_limited").asLong())));
        rows.add(row("timeouts seen by EMQX", t -> Long.toString(t.path("timeouts").asLong())));
        rows.add(row("answers after the timeout (wasted)", t -> Long.toString(t.path("answers_after_timeout_total").asLong())));
        rows.add(row("p99 of admitted (200) answers, ms", t -> fmt(t.path("latency_admitted").path("p99_ms").asDouble())));
        rows.add(row("p99 of 503 answers, ms", t -> t.path("latency_unavailable503").path("count").asLong() == 0 ? "-"
                : fmt(t.path("latency_unavailable503").path("p99_ms").asDouble())));
        rows.add(rowOfRun("peak PgBouncer clients / PostgreSQL conns", run -> peak(run, "peak_pgbouncer_clients") + " / "
                + peak(run, "peak_postgres_connections")));
        rows.add(row("devices connected", t -> Long.toString(t.path("devices_connected").asLong())));
        rows.add(row("load generator's worst lag, ms (high = suspect)",
                t -> Long.toString(t.path("max_generator_lag_ms").asLong())));
        return rows;
    }

    public String table() {
        List<List<String>> rows = rows();
        int columns = rows.get(0).size();
        int[] widths = new int[columns];
        for (List<String> row : rows) {
            for (int c = 0; c < columns; c++) {
                widths[c] = Math.max(widths[c], row.get(c).length());
            }
        }
        StringBuilder out = new StringBuilder();
        for (int r = 0; r < rows.size(); r++) {
            List<String> row = rows.get(r);
            for (int c = 0; c < columns; c++) {
                String cell = row.get(c);
                out.append(c == 0 ? String.format("%-" + widths[c] + "s", cell)
                        : "  " + String.format("%" + widths[c] + "s", cell));
            }
            out.append('\n');
            if (r == 0) {
                out.append("-".repeat(java.util.Arrays.stream(widths).sum() + 2 * (columns - 1))).append('\n');
            }
        }
        return out.toString();
    }

    public void write(Path directory) throws IOException {
        Files.createDirectories(directory);
        Files.writeString(directory.resolve("comparison.txt"), table(), StandardCharsets.UTF_8);
        ObjectNode data = Json.MAPPER.createObjectNode();
        data.put("capacity", capacity());
        ArrayNode table = data.putArray("table");
        rows().forEach(row -> table.add(Json.MAPPER.valueToTree(row)));
        ObjectNode runNodes = data.putObject("runs");
        runs.forEach((label, run) -> {
            ObjectNode node = runNodes.putObject(label);
            node.put("report", directory.relativize(runFiles.get(label).toAbsolutePath().getParent()
                    .resolve("report.html")).toString());
            node.set("settings", run.path("settings"));
            ArrayNode goodput = node.putArray("goodput");
            ArrayNode offered = node.putArray("offered");
            run.path("seconds").forEach(s -> {
                goodput.add(s.path("goodput").asLong());
                offered.add(s.path("offered").asLong());
            });
        });
        String json = Json.MAPPER.writeValueAsString(data);
        Files.writeString(directory.resolve("comparison.json"), json, StandardCharsets.UTF_8);
        Files.writeString(directory.resolve("index.html"), HtmlPage.render("comparison.html", "incident replay", json),
                StandardCharsets.UTF_8);
    }

    private List<String> header() {
        List<String> header = new ArrayList<>();
        header.add("");
        header.addAll(runs.keySet());
        return header;
    }

    private List<String> row(String name, Function<JsonNode, String> cell) {
        return rowOfRun(name, run -> cell.apply(run.path("totals")));
    }

    private List<String> rowOfRun(String name, Function<JsonNode, String> cell) {
        List<String> row = new ArrayList<>();
        row.add(name);
        runs.values().forEach(run -> row.add(cell.apply(run)));
        return row;
    }

    private static String peak(JsonNode run, String field) {
        JsonNode value = run.path("database").path(field);
        return value.isNumber() ? value.asText() : "-";
    }

    private static String fmt(double value) {
        return value >= 100 ? String.format("%.0f", value) : String.format("%.1f", value);
    }
}
