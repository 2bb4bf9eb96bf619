package io.deviceidentity.loadtest.report;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

/**
 * Several runs against one measured capacity: a text table with one row per run (what {@code make bench} prints)
 * and an HTML page with the overload curve (steady-state goodput ÷ capacity against offered load, one line per
 * series), the per-second goodput of every run, and links to each run's own report. Reads the runs' summary.json,
 * so it also works on results copied from elsewhere.
 * <p>
 * A run's series is its label without a trailing {@code -<n>x} ({@code protected-8x} → {@code protected}); runs
 * whose arrival rate steps are in the table but not on the curve (their offered load is not one number).
 */
public final class Comparison {

    private static final Pattern LOAD_SUFFIX = Pattern.compile("-[0-9.]+x$");

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

    /** Allows per second of the capacity run: its steady state (the counted closed loop). */
    public double capacity() {
        return goodput(capacity, "steady_state");
    }

    /** Steady-state goodput, or for summaries written before there was one, the whole run's. */
    private static double goodput(JsonNode run, String window) {
        JsonNode value = run.path(window).path("goodput");
        return value.isNumber() ? value.asDouble() : run.path("totals").path("goodput").asDouble();
    }

    static String series(String label) {
        return LOAD_SUFFIX.matcher(label).replaceFirst("");
    }

    private static boolean isStep(JsonNode run) {
        return run.path("settings").has("step_rate");
    }

    /** Arrival rate ÷ capacity (NaN for a closed loop or an unknown capacity). */
    private double offeredTimes(JsonNode run, String field) {
        double cap = capacity();
        JsonNode rate = run.path("settings").path(field);
        return cap > 0 && rate.isNumber() ? rate.asDouble() / cap : Double.NaN;
    }

    public static final List<String> HEADER = List.of("run", "offered (x capacity)", "steady goodput / capacity",
            "whole-run goodput / capacity", "wasted % (steady)", "p99 allow ms", "p99 503 ms", "EMQX queue peak",
            "generator lag ms", "5xx other than 503");

    /** The table: a header, then one row per run. */
    public List<List<String>> rows() {
        double cap = capacity();
        List<List<String>> rows = new ArrayList<>();
        rows.add(HEADER);
        runs.forEach((label, run) -> {
            JsonNode steady = run.path("steady_state");
            JsonNode whole = run.path("whole_run");
            String offered = isStep(run)
                    ? times(offeredTimes(run, "rate")) + " -> " + times(offeredTimes(run, "step_rate"))
                    : times(offeredTimes(run, "rate"));
            rows.add(List.of(label, offered,
                    ratio(goodput(run, "steady_state"), cap),
                    ratio(goodput(run, "whole_run"), cap),
                    wasted(steady.path("wasted_work")),
                    p99(steady.path("latency_allow")),
                    p99(steady.path("latency_503")),
                    steady.path("emqx_queue_peak").asText("-"),
                    whole.path("max_generator_lag_ms").asText("-"),
                    whole.path("status5xx_other").asText("-")));
        });
        return rows;
    }

    /** Lines under the table: capacity, windows, and what could not be measured. */
    public List<String> notes() {
        List<String> notes = new ArrayList<>();
        notes.add(String.format("capacity: %s allows/s (closed loop). steady state = from request_timeout + one retry "
                + "period (after the step, if any) to the end; goodput = allows answered within request_timeout of "
                + "entering EMQX's queue, per second.", fmt(capacity())));
        runs.forEach((label, run) -> {
            JsonNode steady = run.path("steady_state");
            if (steady.path("clamped").asBoolean()) {
                notes.add(label + ": run too short for its steady-state rule; window " + steady.path("start_s").asInt()
                        + "-" + steady.path("end_s").asInt() + " s");
            }
            JsonNode wasted = steady.path("wasted_work");
            if (!wasted.path("problem").isMissingNode() && !wasted.path("problem").isNull()) {
                notes.add(label + ": wasted work not measured (" + wasted.path("problem").asText() + ")");
            } else if (wasted.path("missing").size() > 0) {
                notes.add(label + ": service metric(s) " + wasted.path("missing") + " missing, counted as 0");
            }
        });
        return notes;
    }

    public String table() {
        StringBuilder out = new StringBuilder(TextTable.render(rows()));
        notes().forEach(note -> out.append(note).append('\n'));
        return out.toString();
    }

    public void write(Path directory) throws IOException {
        write(directory, null);
    }

    /** With {@code moreTables} (the fast path's storms, plain text) shown on the page under the curve's table. */
    public void write(Path directory, String moreTables) throws IOException {
        Files.createDirectories(directory);
        Files.writeString(directory.resolve("comparison.txt"), table(), StandardCharsets.UTF_8);
        double cap = capacity();
        ObjectNode data = Json.MAPPER.createObjectNode();
        data.put("capacity", cap);
        ArrayNode table = data.putArray("table");
        rows().forEach(row -> table.add(Json.MAPPER.valueToTree(row)));
        data.set("notes", Json.MAPPER.valueToTree(notes()));
        if (moreTables != null) {
            data.put("more_tables", moreTables);
        }
        ObjectNode runNodes = data.putObject("runs");
        runs.forEach((label, run) -> {
            ObjectNode node = runNodes.putObject(label);
            node.put("report", directory.toAbsolutePath().relativize(runFiles.get(label).toAbsolutePath().getParent()
                    .resolve("report.html")).toString());
            node.set("settings", run.path("settings"));
            node.put("series", series(label));
            node.put("step", isStep(run));
            double offered = offeredTimes(run, isStep(run) ? "step_rate" : "rate");
            if (!Double.isNaN(offered) && cap > 0) {
                node.put("offered_x", Math.round(offered * 100) / 100.0);
                node.put("steady_goodput_per_capacity", Math.round(goodput(run, "steady_state") / cap * 100) / 100.0);
            }
            node.put("steady_start_s", run.path("steady_state").path("start_s").asInt());
            ArrayNode goodput = node.putArray("goodput");
            ArrayNode offeredSeries = node.putArray("offered");
            run.path("seconds").forEach(s -> {
                goodput.add(s.path("goodput").asLong());
                offeredSeries.add(s.path("offered").asLong());
            });
        });
        String json = Json.MAPPER.writeValueAsString(data);
        Files.writeString(directory.resolve("comparison.json"), json, StandardCharsets.UTF_8);
        Files.writeString(directory.resolve("index.html"), HtmlPage.render("comparison.html", "overload curve", json),
                StandardCharsets.UTF_8);
    }

    private static String wasted(JsonNode wasted) {
        JsonNode fraction = wasted.path("fraction");
        return fraction.isNumber() ? String.format("%.0f", fraction.asDouble() * 100) : "-";
    }

    private static String p99(JsonNode latency) {
        return latency.path("count").asLong() == 0 ? "-" : fmt(latency.path("p99_ms").asDouble());
    }

    private static String ratio(double goodput, double cap) {
        return cap <= 0 ? "-" : String.format("%.2f", goodput / cap);
    }

    private static String times(double value) {
        return Double.isNaN(value) ? "-" : String.format("%.1f", value);
    }

    private static String fmt(double value) {
        return value >= 100 ? String.format("%.0f", value) : String.format("%.1f", value);
    }
}
