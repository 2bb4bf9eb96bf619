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

    private static final String POD_ROW = "%-8s %-10s %-13s %-12s %-10s %-10s %-12s %-10s %-6s %-8s %-9s %-11s %s";
    private static final String COLD_ROW = "  %-7s %-12s %-8s %-7s %-9s %-5s %-22s %s";

    private PodTables() {
    }

    /** The storm's late window [from, to), its last seconds, and the slice of its request rate, all in seconds. */
    public record Spans(int from, int to, int last, int every) {
    }

    /**
     * One pod-size row: "cpu capacity bcrypt_bound connections summary.json periods0 throttled0 ms0 periods1
     * throttled1 ms1 us_per_refusal" as bench-pods.sh collects it (throttling "- - -" without a cgroup, the CPU per
     * refused answer "-" when not measured). Goodput / capacity in the late window, the last seconds and the whole
     * storm (from the per-second series); p99 allow, late and expired in the steady-state window (its rule's start to
     * the end); then each row's request rate per slice.
     */
    public static String podTable(List<String> rows, Spans spans) {
        List<String> out = new ArrayList<>();
        out.add(String.format(POD_ROW, "pod CPU", "capacity", "bcrypt-bound", "connections", spans.from() + "-" + spans.to() + " s",
                "last " + spans.last() + " s", "whole storm", "p99 allow", "late", "expired", "bcrypt/s", "us/refusal",
                "throttled periods"));
        List<String> rates = new ArrayList<>();
        for (String row : rows) {
            String[] f = row.strip().split("\\s+");
            Path summary = Path.of(f[4]);
            JsonNode steady = steadyState(summary);
            JsonNode allow = steady.path("latency_allow");
            boolean hasP99 = allow.path("count").asLong() != 0 && allow.path("p99_ms").isNumber();
            double done = steady.path("wasted_work").path("bcrypts_done").asDouble();
            double seconds = steady.path("seconds").asDouble();
            double capacity = Double.parseDouble(f[1]);
            String throttled = f[5].equals("-") ? "-" : (Long.parseLong(f[9]) - Long.parseLong(f[6])) + " of "
                    + (Long.parseLong(f[8]) - Long.parseLong(f[5]));
            LateWindows windows = lateWindows(summary);
            out.add(String.format(POD_ROW, f[0], Numbers.fixed(capacity, 2) + "/s",
                    f[2].equals("-") ? "-" : f[2] + "/s", f[3],
                    ratio(windows == null ? null : windows.span("late", spans.from(), spans.to(), capacity)),
                    ratio(windows == null ? null : windows.last(spans.last(), capacity)),
                    ratio(windows == null ? null : windows.whole(capacity)),
                    hasP99 ? Numbers.fixed(allow.path("p99_ms").asDouble() / 1000, 1) + " s" : "-",
                    steady.path("late_answers_total").asText("-"), steady.path("expired_in_queue").asText("-"),
                    done == 0 || seconds == 0 ? "-" : Numbers.fixed(done / seconds, 2), f.length > 11 ? f[11] : "-",
                    throttled));
            if (windows != null && windows.length() > 0) {
                rates.add("  " + f[0] + " vCPU, " + f[3] + " connections: " + String.join(" ",
                        windows.slices(spans.every()).stream().map(LateWindows::compact).toList()));
            }
        }
        if (!rates.isEmpty()) {
            out.add("Request rate per " + spans.every() + " s of the storm, per second: offered/answered/allowed/refused");
            out.addAll(rates);
        }
        return String.join("\n", out) + "\n";
    }

    private static String ratio(LateWindows.Span span) {
        return span == null || span.perCapacity() == null ? "-" : Numbers.fixed(span.perCapacity(), 2);
    }

    private static LateWindows lateWindows(Path summary) {
        try {
            return LateWindows.of(summary);
        } catch (IOException | RuntimeException unreadable) {
            return null;
        }
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
