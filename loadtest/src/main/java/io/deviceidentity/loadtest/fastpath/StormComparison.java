package io.deviceidentity.loadtest.fastpath;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deviceidentity.loadtest.report.Json;
import io.deviceidentity.loadtest.report.TextTable;

/**
 * The fast path's two storms of {@code make bench}, against the bcrypt capacity and against pgbench:
 * <ul>
 *   <li><b>Known-device reconnect storm</b>: closed-loop and open-model runs of devices that were verified once
 *       before. The service's best closed-loop steady-state goodput is its maximum; the headline is that maximum ÷
 *       the best pgbench throughput of the service's own credential query on the same core and PgBouncer. Goals: ≥ 0.5
 *       × pgbench, ≥ 100 × the bcrypt capacity, p99 ≤ 20 ms (judged on each open-model step; the closed loop's
 *       latency is set by its number of callers, Little's law).</li>
 *   <li><b>Mixed storm</b>: a population of two parts, {@code known} (verified before) and {@code cold} (never
 *       verified): the known part's first-attempt success share (goal: all of them), and the cold part's steady-state
 *       goodput against the bcrypt capacity (goal: ≥ 0.95 × capacity when its demand exceeds capacity, else ≥ 0.95 ×
 *       its demand, the arrivals of the cold part per second in the same window).</li>
 * </ul>
 * Reads the runs' summary.json and pgbench's printed output, so it also works on copied results.
 */
public final class StormComparison {

    static final double PGBENCH_GOAL = 0.5;
    static final double CAPACITY_GOAL = 100;
    static final double P99_GOAL_MS = 20;
    static final double COLD_GOAL = 0.95;
    /** An open step counts as sustained when its steady-state goodput reached this share of its arrival rate. */
    static final double SUSTAINED = 0.95;

    private final double capacity;
    private final Map<String, JsonNode> known;
    private final List<PgbenchResult> pgbench;
    private final Map<String, JsonNode> mixed;
    private final Integer knownCost;

    StormComparison(double capacity, Map<String, JsonNode> known, List<PgbenchResult> pgbench,
            Map<String, JsonNode> mixed, Integer knownCost) {
        this.capacity = capacity;
        this.known = known;
        this.pgbench = pgbench;
        this.mixed = mixed;
        this.knownCost = knownCost;
    }

    public static StormComparison load(double capacity, Map<String, Path> knownRuns, Map<String, Path> pgbenchOutputs,
            Map<String, Path> mixedRuns, Integer knownCost) throws IOException {
        List<PgbenchResult> pgbench = new ArrayList<>();
        for (Map.Entry<String, Path> output : pgbenchOutputs.entrySet()) {
            pgbench.add(PgbenchResult.read(output.getKey(), output.getValue()));
        }
        return new StormComparison(capacity, read(knownRuns), pgbench, read(mixedRuns), knownCost);
    }

    private static Map<String, JsonNode> read(Map<String, Path> files) throws IOException {
        Map<String, JsonNode> runs = new LinkedHashMap<>();
        for (Map.Entry<String, Path> run : files.entrySet()) {
            runs.put(run.getKey(), Json.MAPPER.readTree(run.getValue().toFile()));
        }
        return runs;
    }

    public boolean isEmpty() {
        return known.isEmpty() && pgbench.isEmpty() && mixed.isEmpty();
    }

    // --- known-device storm ----------------------------------------------------------------------------------

    private static boolean closedLoop(JsonNode run) {
        return "closed-loop".equals(run.path("settings").path("model").asText());
    }

    private static double goodput(JsonNode run) {
        return run.path("steady_state").path("goodput").asDouble();
    }

    /** The service's maximum: the best closed-loop goodput (any known run when there is no closed loop). */
    public double serviceMax() {
        double best = known.values().stream().filter(StormComparison::closedLoop).mapToDouble(StormComparison::goodput)
                .max().orElse(Double.NaN);
        return Double.isNaN(best) ? known.values().stream().mapToDouble(StormComparison::goodput).max().orElse(Double.NaN)
                : best;
    }

    private String serviceMaxRun() {
        String label = null;
        double best = -1;
        boolean anyClosed = known.values().stream().anyMatch(StormComparison::closedLoop);
        for (Map.Entry<String, JsonNode> run : known.entrySet()) {
            if ((!anyClosed || closedLoop(run.getValue())) && goodput(run.getValue()) > best) {
                best = goodput(run.getValue());
                label = run.getKey();
            }
        }
        return label;
    }

    /** The best pgbench throughput (the strictest denominator). */
    public PgbenchResult bestPgbench() {
        return pgbench.stream().max((a, b) -> Double.compare(a.tps(), b.tps())).orElse(null);
    }

    public static final List<String> KNOWN_HEADER = List.of("run", "model", "offered/s", "allows/s",
            "x bcrypt capacity", "/ best pgbench", "p50 ms", "p99 ms", "p99 <= 20 ms", "not allowed", "generator lag ms");

    public List<List<String>> knownRows() {
        PgbenchResult best = bestPgbench();
        List<List<String>> rows = new ArrayList<>();
        rows.add(KNOWN_HEADER);
        known.forEach((label, run) -> {
            JsonNode settings = run.path("settings");
            JsonNode steady = run.path("steady_state");
            boolean closed = closedLoop(run);
            String model = closed ? "closed " + settings.path("closed_loop_users").asInt() + " users"
                    : "open " + fmt(arrivalRate(run)) + "/s";
            model += ", " + settings.path("pool_size").asInt() + "x" + settings.path("pipelining").asInt();
            double allows = goodput(run);
            JsonNode latency = steady.path("latency_allow");
            rows.add(List.of(label, model, fmt(steady.path("offered_rate").asDouble()), fmt(allows),
                    capacity > 0 ? String.format("%.0f", allows / capacity) : "-",
                    best == null ? "-" : String.format("%.2f", allows / best.tps()),
                    latencyCell(latency, "p50_ms"), latencyCell(latency, "p99_ms"),
                    closed ? "(closed)" : p99Verdict(run), notAllowed(steady.path("outcomes")),
                    run.path("whole_run").path("max_generator_lag_ms").asText("-")));
        });
        return rows;
    }

    public static final List<String> PGBENCH_HEADER = List.of("pgbench", "query mode", "clients", "threads", "tps",
            "latency avg ms", "failed", "service max / this");

    public List<List<String>> pgbenchRows() {
        double max = serviceMax();
        List<List<String>> rows = new ArrayList<>();
        rows.add(PGBENCH_HEADER);
        for (PgbenchResult p : pgbench) {
            rows.add(List.of(p.label(), p.queryMode(), Integer.toString(p.clients()), Integer.toString(p.threads()),
                    fmt(p.tps()), String.format("%.2f", p.latencyAverageMs()), Long.toString(p.failed()),
                    Double.isNaN(max) || p.tps() <= 0 ? "-" : String.format("%.2f", max / p.tps())));
        }
        return rows;
    }

    /** Open-model runs, by arrival rate. */
    private List<Map.Entry<String, JsonNode>> openSteps() {
        return known.entrySet().stream().filter(e -> !closedLoop(e.getValue()))
                .sorted((a, b) -> Double.compare(arrivalRate(a.getValue()), arrivalRate(b.getValue())))
                .toList();
    }

    private static boolean sustained(JsonNode run) {
        return goodput(run) >= SUSTAINED * arrivalRate(run);
    }

    /**
     * The arrival rate an open step is judged at: its step rate when it steps (the bench warms the load generator at
     * a lower rate first and counts from the step on), else its one rate.
     */
    static double arrivalRate(JsonNode run) {
        JsonNode settings = run.path("settings");
        return settings.has("step_rate") ? settings.path("step_rate").asDouble() : settings.path("rate").asDouble();
    }

    private static Double p99(JsonNode run) {
        JsonNode latency = run.path("steady_state").path("latency_allow");
        return latency.path("count").asLong() == 0 ? null : latency.path("p99_ms").asDouble();
    }

    private static String p99Verdict(JsonNode run) {
        Double p99 = p99(run);
        if (p99 == null) {
            return "-";
        }
        return (p99 <= P99_GOAL_MS ? "PASS" : "FAIL") + (sustained(run) ? "" : " (not sustained)");
    }

    /**
     * The highest steady-state goodput of an open step that was sustained with p99 ≤ 20 ms, all lower steps too:
     * the throughput the service delivers within the latency goal. NaN without such a step.
     */
    public double throughputWithinP99() {
        double best = Double.NaN;
        for (Map.Entry<String, JsonNode> step : openSteps()) {
            Double p99 = p99(step.getValue());
            if (p99 == null || p99 > P99_GOAL_MS || !sustained(step.getValue())) {
                break;
            }
            best = goodput(step.getValue());
        }
        return best;
    }

    public List<Goal> knownGoals() {
        List<Goal> goals = new ArrayList<>();
        double max = serviceMax();
        PgbenchResult best = bestPgbench();
        if (Double.isNaN(max)) {
            return goals;
        }
        goals.add(best == null ? new Goal("service / pgbench", ">= " + PGBENCH_GOAL, "no pgbench run", null)
                : new Goal("service / pgbench", ">= " + PGBENCH_GOAL,
                        String.format("%.2f (%s allows/s / %s tps, %s)", max / best.tps(), fmt(max), fmt(best.tps()),
                                best.label()), max / best.tps() >= PGBENCH_GOAL));
        goals.add(capacity > 0 ? new Goal("service / bcrypt capacity", ">= " + fmt(CAPACITY_GOAL),
                String.format("%.0f (%s / %s allows/s)", max / capacity, fmt(max), fmt(capacity)),
                max / capacity >= CAPACITY_GOAL) : new Goal("service / bcrypt capacity", ">= 100", "no capacity", null));
        List<Map.Entry<String, JsonNode>> steps = openSteps();
        if (steps.isEmpty()) {
            goals.add(new Goal("p99 allow (open steps)", "<= 20 ms", "no open-model step", null));
        } else {
            StringBuilder measured = new StringBuilder();
            boolean all = true;
            for (Map.Entry<String, JsonNode> step : steps) {
                Double p99 = p99(step.getValue());
                all &= p99 != null && p99 <= P99_GOAL_MS;
                measured.append(measured.length() == 0 ? "" : ", ")
                        .append(fmt(arrivalRate(step.getValue()))).append("/s: ")
                        .append(p99 == null ? "-" : fmt(p99)).append(" ms");
            }
            goals.add(new Goal("p99 allow, every open step", "<= 20 ms", measured.toString(), all));
            double within = throughputWithinP99();
            double needed = Math.max(capacity * CAPACITY_GOAL, best == null ? 0 : PGBENCH_GOAL * best.tps());
            goals.add(new Goal("allows/s within p99 <= 20 ms (sustained open steps)",
                    ">= " + fmt(needed) + " (both goals above at once)",
                    Double.isNaN(within) ? "no step met it" : fmt(within) + " allows/s",
                    Double.isNaN(within) ? Boolean.FALSE : within >= needed));
        }
        return goals;
    }

    // --- mixed storm -----------------------------------------------------------------------------------------

    public static final List<String> MIXED_HEADER = List.of("run", "offered/s (x cap)", "known demand/s",
            "known 1st-attempt success", "known p99 ms", "cold demand/s (x cap)", "cold goodput/s (x cap)",
            "cold goal", "generator lag ms");

    public List<List<String>> mixedRows() {
        List<List<String>> rows = new ArrayList<>();
        rows.add(MIXED_HEADER);
        mixed.forEach((label, run) -> {
            JsonNode steady = run.path("steady_state");
            JsonNode knownPart = steady.path("parts").path("known");
            JsonNode coldPart = steady.path("parts").path("cold");
            double rate = run.path("settings").path("rate").asDouble();
            rows.add(List.of(label, fmt(rate) + " (" + times(rate) + ")", fmt(knownPart.path("demand").asDouble()),
                    share(knownPart), latencyCell(knownPart.path("latency_allow"), "p99_ms"),
                    fmt(coldPart.path("demand").asDouble()) + " (" + times(coldPart.path("demand").asDouble()) + ")",
                    fmt(coldPart.path("goodput").asDouble()) + " (" + times(coldPart.path("goodput").asDouble()) + ")",
                    ">= " + fmt(coldTarget(coldPart)), run.path("whole_run").path("max_generator_lag_ms").asText("-")));
        });
        return rows;
    }

    /** 0.95 × min(capacity, the cold part's demand in the window). */
    double coldTarget(JsonNode coldPart) {
        double demand = coldPart.path("demand").asDouble();
        return COLD_GOAL * (capacity > 0 ? Math.min(capacity, demand) : demand);
    }

    public List<Goal> mixedGoals(String label) {
        JsonNode run = mixed.get(label);
        JsonNode steady = run.path("steady_state");
        JsonNode knownPart = steady.path("parts").path("known");
        JsonNode coldPart = steady.path("parts").path("cold");
        List<Goal> goals = new ArrayList<>();
        long first = knownPart.path("first_attempts").asLong();
        long allowed = knownPart.path("first_attempt_allows").asLong();
        goals.add(new Goal(label + ": known devices connect on their first attempt", "all",
                first == 0 ? "no first attempt" : allowed + " of " + first + " (" + share(knownPart) + ")",
                first == 0 ? null : allowed == first));
        double demand = coldPart.path("demand").asDouble();
        double goodput = coldPart.path("goodput").asDouble();
        String basis = capacity > 0 && demand > capacity ? "0.95 x capacity (cold demand above capacity)"
                : "0.95 x cold demand (below capacity)";
        goals.add(new Goal(label + ": cold goodput", ">= " + fmt(coldTarget(coldPart)) + "/s = " + basis,
                fmt(goodput) + "/s", coldPart.isMissingNode() ? null : goodput >= coldTarget(coldPart)));
        return goals;
    }

    /** What the mixed storm's offered load means: the cold part's share of it against the bcrypt capacity. */
    public List<String> mixedNotes() {
        List<String> notes = new ArrayList<>();
        mixed.forEach((label, run) -> {
            double rate = run.path("settings").path("rate").asDouble();
            JsonNode parts = run.path("settings").path("parts");
            double coldShare = parts.path("cold").path("share").asDouble();
            double coldRate = rate * coldShare;
            notes.add(String.format("%s: %s arrivals/s = %s bcrypt capacity; known %s/s (%.0f %%), cold %s/s "
                    + "(%.0f %%) = %s capacity, %s capacity: goal for the cold part %s", label, fmt(rate),
                    times(rate), fmt(rate - coldRate), (1 - coldShare) * 100, fmt(coldRate), coldShare * 100,
                    times(coldRate), capacity > 0 && coldRate > capacity ? "above" : "below",
                    capacity > 0 && coldRate > capacity ? ">= 0.95 x capacity" : ">= 0.95 x its demand"));
        });
        return notes;
    }

    // --- output ------------------------------------------------------------------------------------------------

    public String text() {
        StringBuilder out = new StringBuilder();
        if (!known.isEmpty() || !pgbench.isEmpty()) {
            out.append("Known-device reconnect storm (every device verified once before; fast path on")
                    .append(knownCost == null ? "" : "; devices seeded at bcrypt cost " + knownCost
                            + ", which only the verify-once pass pays: a fast-path allow costs the same at any cost")
                    .append("), bcrypt capacity ").append(fmt(capacity)).append(" allows/s:\n");
            if (!known.isEmpty()) {
                out.append(TextTable.render(knownRows()));
            }
            if (!pgbench.isEmpty()) {
                out.append('\n').append(TextTable.render(pgbenchRows()));
            }
            if (!known.isEmpty()) {
                String maxRun = serviceMaxRun();
                out.append('\n').append(String.format("service max: %s allows/s (%s)", fmt(serviceMax()), maxRun));
                PgbenchResult best = bestPgbench();
                if (best != null) {
                    out.append(String.format("; best pgbench %s tps (%s): ratio service / pgbench = %.2f", fmt(best.tps()),
                            best.label(), serviceMax() / best.tps()));
                }
                out.append('\n');
                out.append(goalTable(knownGoals()));
            }
        }
        if (!mixed.isEmpty()) {
            out.append(out.length() == 0 ? "" : "\n")
                    .append("Mixed storm (known devices verified before + cold devices never verified, cost 10), ")
                    .append("bcrypt capacity ").append(fmt(capacity)).append(" allows/s:\n");
            out.append(TextTable.render(mixedRows()));
            mixedNotes().forEach(note -> out.append(note).append('\n'));
            List<Goal> goals = new ArrayList<>();
            mixed.keySet().forEach(label -> goals.addAll(mixedGoals(label)));
            out.append(goalTable(goals));
        }
        return out.toString();
    }

    private static String goalTable(List<Goal> goals) {
        if (goals.isEmpty()) {
            return "";
        }
        List<List<String>> rows = new ArrayList<>();
        rows.add(List.of("goal", "target", "measured", "verdict"));
        goals.forEach(g -> rows.add(List.of(g.name(), g.target(), g.measured(), g.verdict())));
        return TextTable.render(rows);
    }

    public ObjectNode json() {
        ObjectNode data = Json.MAPPER.createObjectNode();
        data.put("capacity", capacity);
        if (knownCost != null) {
            data.put("known_cost", knownCost);
        }
        ObjectNode knownNode = data.putObject("known_storm");
        if (!known.isEmpty()) {
            double max = serviceMax();
            knownNode.put("service_max", max);
            knownNode.put("service_max_run", serviceMaxRun());
            PgbenchResult best = bestPgbench();
            if (best != null) {
                knownNode.put("best_pgbench_tps", best.tps());
                knownNode.put("service_per_pgbench", Math.round(max / best.tps() * 1000) / 1000.0);
            }
            if (capacity > 0) {
                knownNode.put("service_per_capacity", Math.round(max / capacity));
            }
            double within = throughputWithinP99();
            if (!Double.isNaN(within)) {
                knownNode.put("allows_within_p99_goal", within);
            }
            knownNode.set("table", Json.MAPPER.valueToTree(knownRows()));
            knownNode.set("goals", Json.MAPPER.valueToTree(knownGoals()));
        }
        ArrayNode pgbenchNode = knownNode.putArray("pgbench");
        pgbench.forEach(p -> pgbenchNode.add(Json.MAPPER.valueToTree(p)));
        if (!mixed.isEmpty()) {
            ObjectNode mixedNode = data.putObject("mixed_storm");
            mixedNode.set("table", Json.MAPPER.valueToTree(mixedRows()));
            mixedNode.set("notes", Json.MAPPER.valueToTree(mixedNotes()));
            List<Goal> goals = new ArrayList<>();
            mixed.keySet().forEach(label -> goals.addAll(mixedGoals(label)));
            mixedNode.set("goals", Json.MAPPER.valueToTree(goals));
        }
        data.put("text", text());
        return data;
    }

    // --- cells -------------------------------------------------------------------------------------------------

    private String times(double rate) {
        return capacity > 0 ? String.format("%.1fx", rate / capacity) : "-";
    }

    private static String share(JsonNode part) {
        JsonNode share = part.path("first_attempt_success_share");
        return share.isNumber() ? String.format("%.1f %%", share.asDouble() * 100) : "-";
    }

    private static String latencyCell(JsonNode latency, String field) {
        return latency.path("count").asLong() == 0 ? "-" : fmt(latency.path(field).asDouble());
    }

    /** Answers other than an allow in the steady state, e.g. {@code 503 overload 12}; "-" when there were none. */
    private static String notAllowed(JsonNode outcomes) {
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
