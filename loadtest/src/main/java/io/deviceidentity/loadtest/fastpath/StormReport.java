package io.deviceidentity.loadtest.fastpath;

import static io.deviceidentity.loadtest.fastpath.StormCells.fmt;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deviceidentity.loadtest.report.Json;
import io.deviceidentity.loadtest.report.TextTable;

/**
 * The fast path's two storms of {@code make bench} as {@code compare} prints and writes them (fast-path.txt and
 * fast-path.json): each storm's tables and goals as {@link KnownStorm} and {@link MixedStorm} judge them, against the
 * bcrypt capacity. Renders only; works on copied results too.
 */
public final class StormReport {

    private final double capacity;
    private final KnownStorm known;
    private final MixedStorm mixed;

    StormReport(double capacity, KnownStorm known, MixedStorm mixed) {
        this.capacity = capacity;
        this.known = known;
        this.mixed = mixed;
    }

    public static StormReport load(double capacity, Map<String, Path> knownRuns, Map<String, Path> pgbenchOutputs,
            Map<String, Path> mixedRuns, Integer knownCost) throws IOException {
        return new StormReport(capacity, KnownStorm.load(capacity, knownRuns, pgbenchOutputs, knownCost),
                MixedStorm.load(capacity, mixedRuns));
    }

    public boolean isEmpty() {
        return !known.hasRuns() && !known.hasPgbench() && mixed.isEmpty();
    }

    public String text() {
        StringBuilder out = new StringBuilder();
        if (known.hasRuns() || known.hasPgbench()) {
            out.append("Known-device reconnect storm (every device verified once before; fast path on")
                    .append(known.cost() == null ? "" : "; devices seeded at bcrypt cost " + known.cost()
                            + ", which only the verify-once pass pays: a fast-path allow costs the same at any cost")
                    .append("), bcrypt capacity ").append(fmt(capacity)).append(" allows/s:\n");
            if (known.hasRuns()) {
                out.append(TextTable.render(known.rows()));
            }
            if (known.hasPgbench()) {
                out.append('\n').append(TextTable.render(known.pgbenchRows()));
            }
            if (known.hasRuns()) {
                out.append('\n').append(String.format("service max: %s allows/s (%s)", fmt(known.serviceMax()),
                        known.serviceMaxRun()));
                PgbenchResult best = known.bestPgbench();
                if (best != null) {
                    out.append(String.format("; best pgbench %s tps (%s): ratio service / pgbench = %.2f", fmt(best.tps()),
                            best.label(), known.serviceMax() / best.tps()));
                }
                out.append('\n');
                out.append(goalTable(known.goals()));
            }
        }
        if (!mixed.isEmpty()) {
            out.append(out.length() == 0 ? "" : "\n")
                    .append("Mixed storm (known devices verified before + cold devices never verified, cost 10), ")
                    .append("bcrypt capacity ").append(fmt(capacity)).append(" allows/s:\n");
            out.append(TextTable.render(mixed.rows()));
            mixed.notes().forEach(note -> out.append(note).append('\n'));
            out.append(goalTable(mixed.goals()));
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
        if (known.cost() != null) {
            data.put("known_cost", known.cost());
        }
        ObjectNode knownNode = data.putObject("known_storm");
        if (known.hasRuns()) {
            double max = known.serviceMax();
            knownNode.put("service_max", max);
            knownNode.put("service_max_run", known.serviceMaxRun());
            PgbenchResult best = known.bestPgbench();
            if (best != null) {
                knownNode.put("best_pgbench_tps", best.tps());
                knownNode.put("service_per_pgbench", Math.round(max / best.tps() * 1000) / 1000.0);
            }
            if (capacity > 0) {
                knownNode.put("service_per_capacity", Math.round(max / capacity));
            }
            double within = known.throughputWithinP99();
            if (!Double.isNaN(within)) {
                knownNode.put("allows_within_p99_goal", within);
            }
            knownNode.set("table", Json.MAPPER.valueToTree(known.rows()));
            knownNode.set("goals", Json.MAPPER.valueToTree(known.goals()));
        }
        ArrayNode pgbenchNode = knownNode.putArray("pgbench");
        known.pgbench().forEach(p -> pgbenchNode.add(Json.MAPPER.valueToTree(p)));
        if (!mixed.isEmpty()) {
            ObjectNode mixedNode = data.putObject("mixed_storm");
            mixedNode.set("table", Json.MAPPER.valueToTree(mixed.rows()));
            mixedNode.set("notes", Json.MAPPER.valueToTree(mixed.notes()));
            mixedNode.set("goals", Json.MAPPER.valueToTree(mixed.goals()));
        }
        data.put("text", text());
        return data;
    }
}
