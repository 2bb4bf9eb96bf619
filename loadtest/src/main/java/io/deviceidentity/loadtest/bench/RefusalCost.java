package io.deviceidentity.loadtest.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;

import com.fasterxml.jackson.databind.JsonNode;

import io.deviceidentity.loadtest.report.Json;

/**
 * What one refused answer costs the pod in CPU, all threads of the process (TLS, HTTP, JSON, metrics, GC, JIT
 * included), from thread CPU accounting (scripts/thread-cpu.py snapshots) over a storm's late window, when the JIT is
 * warm, and the answers the load generator counted in it (summary.json's per-second series):
 * <pre>
 *   (process CPU - bcrypt threads' CPU - allows x non-bcrypt CPU per allow) / refused answers
 * </pre>
 * The non-bcrypt CPU per allow comes from a capacity run of the pod (a closed loop that is never refused: its answers
 * are allows, each with its own HTTPS, JSON, database read and bcrypt hand-off) made after the storms, the JIT warm.
 * What is left over in the storm is what the refusals cost. A refused answer is an in-time 4xx/5xx (the bench's devices all know their password: no
 * deny costs a bcrypt); an answer that came late is priced as an allow (a late 200 cost a bcrypt and the rest of an
 * allow; a late 503 costs less, so the figure leans low when there are late answers, and make bench shows them).
 */
public final class RefusalCost {

    /** A thread-cpu.py snapshot: clock ticks per group and of the whole process (the groups' sum without it). */
    public record ThreadCpu(long clkTck, Map<String, Long> ticks, long process) {

        public static ThreadCpu parse(String json) throws IOException {
            JsonNode node = Json.MAPPER.readTree(json);
            Map<String, Long> ticks = new LinkedHashMap<>();
            node.path("ticks").properties().forEach(e -> ticks.put(e.getKey(), e.getValue().asLong()));
            long process = node.has("process") ? node.path("process").asLong()
                    : ticks.values().stream().mapToLong(Long::longValue).sum();
            return new ThreadCpu(node.path("clk_tck").asLong(100), ticks, process);
        }

        static ThreadCpu read(Path file) throws IOException {
            return parse(Files.readString(file));
        }

        long group(String name) {
            return ticks.getOrDefault(name, 0L);
        }
    }

    /** CPU seconds (process, bcrypt threads) and answers (allows, refusals) between two snapshots. */
    public record Span(double processSeconds, double bcryptSeconds, long allows, long refused) {

        public static Span between(ThreadCpu before, ThreadCpu after, LateWindows.Counts answers) {
            double tck = after.clkTck();
            return new Span(Math.max(0, after.process() - before.process()) / tck,
                    Math.max(0, after.group("bcrypt") - before.group("bcrypt")) / tck,
                    answers.allows() + answers.late(), answers.refused());
        }

        /** From two snapshot files and the answers of the run's seconds [from, end). */
        public static Span read(Path threadsBefore, Path threadsAfter, Path summary, int from) throws IOException {
            LateWindows series = LateWindows.of(summary);
            return between(ThreadCpu.read(threadsBefore), ThreadCpu.read(threadsAfter),
                    series.counts(from, series.length()));
        }

        double notBcryptSeconds() {
            return Math.max(0, processSeconds - bcryptSeconds);
        }

        long answers() {
            return allows + refused;
        }
    }

    /** The figure: microseconds per refused answer, null without refusals (or without allows to price them by). */
    public record Result(Span capacity, Span window, Double notBcryptPerAllowUs, Double perRefusalUs,
            Double allButBcryptPerAnswerUs) {

        /** The line make bench prints and writes to the point's refusal-cost.txt. */
        public String line() {
            return String.format("CPU per refused answer: %s us (window: process %s s, bcrypt threads %s s, %d allows x %s us"
                    + " not bcrypt each as in the capacity run (%s s beside bcrypt over %d allows), %d refused"
                    + " answers); all but bcrypt per answer: %s us",
                    us(perRefusalUs), Numbers.fixed(window.processSeconds(), 2), Numbers.fixed(window.bcryptSeconds(), 2),
                    window.allows(), us(notBcryptPerAllowUs), Numbers.fixed(capacity.notBcryptSeconds(), 2),
                    capacity.allows(), window.refused(), us(allButBcryptPerAnswerUs));
        }

        /** The figure alone, for the pod table ("-" when there is none). */
        public String figure() {
            return us(perRefusalUs);
        }

        private static String us(Double value) {
            return value == null ? "-" : Numbers.fixed(value, 0);
        }
    }

    private RefusalCost() {
    }

    public static Result of(Span capacity, Span window) {
        Double perAllow = capacity.allows() > 0 ? capacity.notBcryptSeconds() * 1e6 / capacity.allows() : null;
        Double perRefusal = perAllow == null || window.refused() <= 0 ? null
                : (window.notBcryptSeconds() * 1e6 - window.allows() * perAllow) / window.refused();
        Double perAnswer = window.answers() > 0 ? window.notBcryptSeconds() * 1e6 / window.answers() : null;
        return new Result(capacity, window, perAllow, perRefusal, perAnswer);
    }
}
