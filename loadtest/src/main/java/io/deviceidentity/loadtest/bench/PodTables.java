package io.deviceidentity.loadtest.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.node.MissingNode;

import io.deviceidentity.loadtest.report.Json;

/**
 * The pod-shaped tables of {@code make bench} (scripts/bench-pods.sh): the pod-size table, one row per pod size and
 * EMQX pool from the storm's summary.json, and a cold replica's first seconds after readiness from replicas.csv.
 */
public final class PodTables {

    private static final String POD_ROW = "%-8s %-10s %-13s %-12s %-18s %-10s %-6s %-8s %-10s %s";
    private static final String COLD_ROW = "  %-7s %-12s %-8s %-7s %-9s %-5s %-22s %s";

    private PodTables() {
    }

    /**
     * One pod-size row: "cpu capacity bcrypt_bound connections summary.json periods0 throttled0 ms0 periods1
     * throttled1 ms1" as bench-pods.sh collects it (throttling "- - -" without a cgroup).
     */
    public static String podTable(List<String> rows) {
        List<String> out = new ArrayList<>();
        out.add(String.format(POD_ROW, "pod CPU", "capacity", "bcrypt-bound", "connections", "goodput/capacity",
                "p99 allow", "late", "expired", "bcrypt/s", "throttled periods"));
        for (String row : rows) {
            String[] f = row.strip().split("\\s+");
            JsonNode steady = steadyState(Path.of(f[4]));
            JsonNode ratio = steady.path("goodput_per_capacity");
            JsonNode allow = steady.path("latency_allow");
            boolean hasP99 = allow.path("count").asLong() != 0 && allow.path("p99_ms").isNumber();
            double done = steady.path("wasted_work").path("bcrypts_done").asDouble();
            double seconds = steady.path("seconds").asDouble();
            String throttled = f[5].equals("-") ? "-" : (Long.parseLong(f[9]) - Long.parseLong(f[6])) + " of "
                    + (Long.parseLong(f[8]) - Long.parseLong(f[5]));
            out.add(String.format(POD_ROW, f[0], Numbers.fixed(Double.parseDouble(f[1]), 2) + "/s",
                    f[2].equals("-") ? "-" : f[2] + "/s", f[3], ratio.isNumber() ? Numbers.fixed(ratio.asDouble(), 2) : "-",
                    hasP99 ? Numbers.fixed(allow.path("p99_ms").asDouble() / 1000, 1) + " s" : "-",
                    steady.path("late_answers_total").asText("-"), steady.path("expired_in_queue").asText("-"),
                    done == 0 || seconds == 0 ? "-" : Numbers.fixed(done / seconds, 2), throttled));
        }
        return String.join("\n", out) + "\n";
    }

    private static JsonNode steadyState(Path summary) {
        try {
            return Json.MAPPER.readTree(summary.toFile()).path("steady_state");
        } catch (IOException | RuntimeException unreadable) {
            return MissingNode.getInstance();
        }
    }

    /**
     * A replica that joined cold: its first SHOWN seconds after readiness, per second, against one replica's share of
     * the capacity (CAPACITY / REPLICAS, the warm ones), beside what the whole Service allowed in that second.
     */
    public static String coldReplica(Path replicasCsv, String slot, int shown, double capacity, int replicas)
            throws IOException {
        if (!Files.exists(replicasCsv)) {
            return "  (no replicas.csv)\n";
        }
        List<Map<String, String>> rows = csv(Files.readAllLines(replicasCsv));
        double perReplica = capacity / replicas;
        Map<String, Long> service = new LinkedHashMap<>();
        for (Map<String, String> r : rows) {
            service.merge(r.get("second"), Long.parseLong(r.get("allows_in_time")), Long::sum);
        }
        List<Map<String, String>> mine = rows.stream().filter(r -> r.get("replica").equals(slot) && r.get("ready").equals("1"))
                .limit(shown).toList();
        if (mine.isEmpty()) {
            return "  never ready during the run\n";
        }
        StringBuilder out = new StringBuilder(String.format(COLD_ROW, "second", "connections", "answers", "allows",
                "refusals", "late", "allows / its capacity", "Service allows/s")).append('\n');
        long first10 = 0;
        for (int i = 0; i < mine.size(); i++) {
            Map<String, String> r = mine.get(i);
            long allows = Long.parseLong(r.get("allows_in_time"));
            first10 += i < 10 ? allows : 0;
            out.append(String.format(COLD_ROW, r.get("second"), r.get("connections"), r.get("answers"), allows,
                    r.get("refusals"), r.get("late"), Numbers.fixed(allows / perReplica, 2), service.get(r.get("second"))))
                    .append('\n');
        }
        return out.append(String.format("  first 10 s after readiness: %d allows = %s of one replica's capacity (%s/s)",
                first10, Numbers.fixed(first10 / 10.0 / perReplica, 2), Numbers.fixed(perReplica, 2))).append('\n')
                .toString();
    }

    private static List<Map<String, String>> csv(List<String> lines) {
        List<Map<String, String>> rows = new ArrayList<>();
        if (lines.isEmpty()) {
            return rows;
        }
        String[] header = lines.get(0).split(",", -1);
        for (String line : lines.subList(1, lines.size())) {
            if (line.isBlank()) {
                continue;
            }
            String[] cells = line.split(",", -1);
            Map<String, String> row = new LinkedHashMap<>();
            for (int i = 0; i < header.length; i++) {
                row.put(header[i].strip(), i < cells.length ? cells[i].strip() : "");
            }
            rows.add(row);
        }
        return rows;
    }
}
