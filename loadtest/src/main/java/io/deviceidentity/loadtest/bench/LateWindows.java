package io.deviceidentity.loadtest.bench;

import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.deviceidentity.loadtest.report.Json;

/**
 * A storm's goodput where it is hardest, from the per-second series of its summary.json ({@code seconds}): the
 * population of retrying devices, and with it the request rate, grows for the whole storm, so a window that ends
 * before the storm does reads kinder than the storm's end. Three spans beside each other: a fixed late window
 * (40-90 s by default), the last N seconds, and the whole storm; and the request rate per slice of the run.
 * Second {@code k} of the series covers elapsed time (k-1, k], so the span [from, to) holds seconds from+1..to; a
 * span that reaches past the run's end is cut there (and says so by its bounds).
 */
public final class LateWindows {

    /** In-time answers whose key starts with these are refusals (503 overload/deadline, 429 rate_limited...). */
    private static final List<String> REFUSAL_STATUSES = List.of("4", "5");

    /** One span: its bounds as measured, the in-time allows in it, their rate, and that rate over the capacity. */
    public record Span(String name, int from, int to, long allows, double goodput, Double perCapacity) {

        String text() {
            return String.format("%s (%d-%d s) %s (%s/s)", name, from, to,
                    perCapacity == null ? "-" : Numbers.fixed(perCapacity, 2), Numbers.fixed(goodput, 1));
        }
    }

    /** One slice of the run, per second: calls entering EMQX, answers (in time or late), allows, refusals, timeouts. */
    public record Slice(int from, int to, double offered, double answered, double allowed, double refused,
            double timeouts) {
    }

    private final List<JsonNode> seconds;

    LateWindows(List<JsonNode> seconds) {
        this.seconds = seconds;
    }

    public static LateWindows of(Path summary) throws IOException {
        List<JsonNode> seconds = new ArrayList<>();
        Json.MAPPER.readTree(summary.toFile()).path("seconds").forEach(seconds::add);
        return new LateWindows(seconds);
    }

    /** The run's length in seconds (the series' length). */
    public int length() {
        return seconds.size();
    }

    /** The span [from, to) cut at the run's end; null when nothing of it was run. */
    public Span span(String name, int from, int to, double capacity) {
        int end = Math.min(to, seconds.size());
        if (from < 0 || from >= end) {
            return null;
        }
        long allows = 0;
        for (JsonNode s : seconds.subList(from, end)) {
            allows += s.path("goodput").asLong();
        }
        double goodput = (double) allows / (end - from);
        return new Span(name, from, end, allows, goodput, capacity > 0 ? goodput / capacity : null);
    }

    /** The last {@code last} seconds of the run. */
    public Span last(int last, double capacity) {
        return span("last " + last + " s", Math.max(0, seconds.size() - last), seconds.size(), capacity);
    }

    /** The whole storm, from its first second. */
    public Span whole(double capacity) {
        return span("whole storm", 0, seconds.size(), capacity);
    }

    /** Answers in [from, to) (cut at the run's end): allows in time, refusals in time, answers that came late. */
    public record Counts(long allows, long refused, long late) {
    }

    public Counts counts(int from, int to) {
        long allows = 0, refused = 0, late = 0;
        for (JsonNode s : seconds.subList(Math.min(Math.max(0, from), seconds.size()), Math.min(to, seconds.size()))) {
            allows += s.path("goodput").asLong();
            late += s.path("answers_after_timeout").asLong();
            refused += refusals(s);
        }
        return new Counts(allows, refused, late);
    }

    private static long refusals(JsonNode second) {
        long refused = 0;
        for (Map.Entry<String, JsonNode> answer : second.path("answers").properties()) {
            if (REFUSAL_STATUSES.stream().anyMatch(answer.getKey()::startsWith)) {
                refused += answer.getValue().asLong();
            }
        }
        return refused;
    }

    /** The run cut into slices of {@code every} seconds (the last one shorter when the length does not divide). */
    public List<Slice> slices(int every) {
        List<Slice> out = new ArrayList<>();
        for (int from = 0; from < seconds.size(); from += every) {
            int to = Math.min(seconds.size(), from + every);
            long offered = 0, answered = 0, allowed = 0, refused = 0, timeouts = 0;
            for (JsonNode s : seconds.subList(from, to)) {
                offered += s.path("offered").asLong();
                allowed += s.path("goodput").asLong();
                timeouts += s.path("timeouts").asLong();
                answered += s.path("answers_after_timeout").asLong();
                for (JsonNode count : s.path("answers")) {
                    answered += count.asLong();
                }
                refused += refusals(s);
            }
            double n = to - from;
            out.add(new Slice(from, to, offered / n, answered / n, allowed / n, refused / n, timeouts / n));
        }
        return out;
    }

    /**
     * The point's late-window report: one line of goodput / capacity in the late window, the last {@code last}
     * seconds and the whole storm, then the request rate per {@code every} seconds.
     */
    public String report(double capacity, int from, int to, int last, int every) {
        if (seconds.isEmpty()) {
            return "goodput / capacity: no per-second series\n";
        }
        StringBuilder out = new StringBuilder(headline(capacity, from, to, last)).append('\n');
        out.append(String.format("  %-9s %10s %11s %10s %10s %11s%n", "seconds", "offered/s", "answered/s", "allowed/s",
                "refused/s", "timeouts/s"));
        for (Slice s : slices(every)) {
            out.append(String.format("  %-9s %10s %11s %10s %10s %11s%n", s.from() + "-" + s.to(),
                    Numbers.fixed(s.offered(), 1), Numbers.fixed(s.answered(), 1), Numbers.fixed(s.allowed(), 1),
                    Numbers.fixed(s.refused(), 1), Numbers.fixed(s.timeouts(), 1)));
        }
        return out.toString();
    }

    /** "goodput / capacity: 40-90 s 0.83 (12.5/s), last 30 s (60-90 s) ..., whole storm (0-90 s) ...". */
    public String headline(double capacity, int from, int to, int last) {
        List<String> parts = new ArrayList<>();
        Span late = span("late window", from, to, capacity);
        parts.add(late == null ? "late window (" + from + "-" + to + " s) - (the run ended at " + seconds.size() + " s)"
                : late.text());
        parts.add(last(last, capacity).text());
        parts.add(whole(capacity).text());
        return "goodput / capacity (" + Numbers.fixed(capacity, 2) + "/s): " + String.join(", ", parts);
    }

    /** A slice as "offered/answered/allowed/refused", per second, whole numbers. */
    static String compact(Slice s) {
        return Numbers.fixed(s.offered(), 0) + "/" + Numbers.fixed(s.answered(), 0) + "/" + Numbers.fixed(s.allowed(), 0)
                + "/" + Numbers.fixed(s.refused(), 0);
    }
}
