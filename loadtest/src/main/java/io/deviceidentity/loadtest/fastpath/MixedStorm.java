package io.deviceidentity.loadtest.fastpath;

import static io.deviceidentity.loadtest.fastpath.StormCells.fmt;
import static io.deviceidentity.loadtest.fastpath.StormCells.share;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

/**
 * The mixed storm of {@code make bench}: a population of two parts, {@code known} (verified before) and {@code cold}
 * (never verified). Judged: the known part's first-attempt success share (goal: all of them), and the cold part's
 * steady-state goodput against the bcrypt capacity (goal: ≥ 0.95 × capacity when its demand exceeds capacity, else
 * ≥ 0.95 × its demand, the arrivals of the cold part per second in the same window).
 */
public final class MixedStorm {

    static final double COLD_GOAL = 0.95;

    public static final List<String> HEADER = List.of("run", "offered/s (x cap)", "known demand/s",
            "known 1st-attempt success", "known p99 ms", "cold demand/s (x cap)", "cold goodput/s (x cap)",
            "cold goal", "generator lag ms");

    private final double capacity;
    private final Map<String, JsonNode> runs;

    MixedStorm(double capacity, Map<String, JsonNode> runs) {
        this.capacity = capacity;
        this.runs = runs;
    }

    public static MixedStorm load(double capacity, Map<String, Path> runs) throws IOException {
        return new MixedStorm(capacity, StormCells.read(runs));
    }

    public boolean isEmpty() {
        return runs.isEmpty();
    }


    public List<List<String>> rows() {
        List<List<String>> rows = new ArrayList<>();
        rows.add(HEADER);
        runs.forEach((label, run) -> {
            JsonNode steady = run.path("steady_state");
            JsonNode knownPart = steady.path("parts").path("known");
            JsonNode coldPart = steady.path("parts").path("cold");
            double rate = run.path("settings").path("rate").asDouble();
            rows.add(List.of(label, fmt(rate) + " (" + times(rate) + ")", fmt(knownPart.path("demand").asDouble()),
                    share(knownPart), StormCells.latencyCell(knownPart.path("latency_allow"), "p99_ms"),
                    fmt(coldPart.path("demand").asDouble()) + " (" + times(coldPart.path("demand").asDouble()) + ")",
                    fmt(coldPart.path("goodput").asDouble()) + " (" + times(coldPart.path("goodput").asDouble()) + ")",
                    ">= " + fmt(coldTarget(coldPart)), StormCells.lag(run)));
        });
        return rows;
    }

    /** 0.95 × min(capacity, the cold part's demand in the window). */
    double coldTarget(JsonNode coldPart) {
        double demand = coldPart.path("demand").asDouble();
        return COLD_GOAL * (capacity > 0 ? Math.min(capacity, demand) : demand);
    }

    public List<Goal> goals(String label) {
        JsonNode run = runs.get(label);
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

    /** Every run's goals, in order. */
    public List<Goal> goals() {
        List<Goal> goals = new ArrayList<>();
        runs.keySet().forEach(label -> goals.addAll(goals(label)));
        return goals;
    }

    /** What the mixed storm's offered load means: the cold part's share of it against the bcrypt capacity. */
    public List<String> notes() {
        List<String> notes = new ArrayList<>();
        runs.forEach((label, run) -> {
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

    private String times(double rate) {
        return StormCells.times(rate, capacity);
    }
}
