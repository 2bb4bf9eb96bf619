package io.deviceidentity.loadtest.fastpath;

import static io.deviceidentity.loadtest.fastpath.StormCells.fmt;
import static io.deviceidentity.loadtest.fastpath.StormCells.goodput;
import static io.deviceidentity.loadtest.fastpath.StormCells.latencyCell;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The known-device reconnect storm of {@code make bench}: closed-loop and open-model runs of devices that were
 * verified once before. The service's best closed-loop steady-state goodput is its maximum; the headline is that
 * maximum ÷ the best pgbench throughput of the service's own credential query on the same core and PgBouncer. Goals:
 * ≥ 0.5 × pgbench, ≥ 100 × the bcrypt capacity, p99 ≤ 20 ms (judged on each open-model step; the closed loop's latency
 * is set by its number of callers, Little's law). Reads the runs' summary.json and pgbench's printed output.
 */
public final class KnownStorm {

    static final double PGBENCH_GOAL = 0.5;
    static final double CAPACITY_GOAL = 100;
    static final double P99_GOAL_MS = 20;
    /** An open step counts as sustained when its steady-state goodput reached this share of its arrival rate. */
    static final double SUSTAINED = 0.95;

    public static final List<String> HEADER = List.of("run", "model", "offered/s", "allows/s",
            "x bcrypt capacity", "/ best pgbench", "p50 ms", "p99 ms", "p99 <= 20 ms", "not allowed", "generator lag ms");
    public static final List<String> PGBENCH_HEADER = List.of("pgbench", "query mode", "clients", "threads", "tps",
            "latency avg ms", "failed", "service max / this");

    private final double capacity;
    private final Map<String, JsonNode> runs;
    private final List<PgbenchResult> pgbench;
    private final Integer cost;

    KnownStorm(double capacity, Map<String, JsonNode> runs, List<PgbenchResult> pgbench, Integer cost) {
        this.capacity = capacity;
        this.runs = runs;
        this.pgbench = pgbench;
        this.cost = cost;
    }

    public static KnownStorm load(double capacity, Map<String, Path> runs, Map<String, Path> pgbenchOutputs,
            Integer cost) throws IOException {
        List<PgbenchResult> pgbench = new ArrayList<>();
        for (Map.Entry<String, Path> output : pgbenchOutputs.entrySet()) {
            pgbench.add(PgbenchResult.read(output.getKey(), output.getValue()));
        }
        return new KnownStorm(capacity, StormCells.read(runs), pgbench, cost);
    }

    public boolean hasRuns() {
        return !runs.isEmpty();
    }

    public boolean hasPgbench() {
        return !pgbench.isEmpty();
    }

    public List<PgbenchResult> pgbench() {
        return pgbench;
    }

    /** The bcrypt cost the known devices were seeded at, null when not said. */
    public Integer cost() {
        return cost;
    }

    private static boolean closedLoop(JsonNode run) {
        return "closed-loop".equals(run.path("settings").path("model").asText());
    }

    /** The service's maximum: the best closed-loop goodput (any known run when there is no closed loop). */
    public double serviceMax() {
        double best = runs.values().stream().filter(KnownStorm::closedLoop).mapToDouble(StormCells::goodput)
                .max().orElse(Double.NaN);
        return Double.isNaN(best) ? runs.values().stream().mapToDouble(StormCells::goodput).max().orElse(Double.NaN)
                : best;
    }

    public String serviceMaxRun() {
        String label = null;
        double best = -1;
        boolean anyClosed = runs.values().stream().anyMatch(KnownStorm::closedLoop);
        for (Map.Entry<String, JsonNode> run : runs.entrySet()) {
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

    public List<List<String>> rows() {
        PgbenchResult best = bestPgbench();
        List<List<String>> rows = new ArrayList<>();
        rows.add(HEADER);
        runs.forEach((label, run) -> {
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
                    closed ? "(closed)" : p99Verdict(run), StormCells.notAllowed(steady.path("outcomes")),
                    StormCells.lag(run)));
        });
        return rows;
    }

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
        return runs.entrySet().stream().filter(e -> !closedLoop(e.getValue()))
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

    public List<Goal> goals() {
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
}
