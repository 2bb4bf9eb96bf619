package io.deviceidentity.loadtest.bench;

import java.io.IOException;
import java.io.InputStream;
import java.time.Instant;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import com.fasterxml.jackson.core.JsonParser;
import com.fasterxml.jackson.core.JsonToken;
import com.fasterxml.jackson.databind.JsonNode;

import io.deviceidentity.loadtest.report.Json;

/**
 * The top frames of a flight recording's execution samples ({@code jfr print --events jdk.ExecutionSample --json}):
 * the method on top of each sampled stack, counted, and the samples by thread group, named as scripts/thread-cpu.py
 * names them (bcrypt, event loop, database, JIT, GC, other). Read as a stream, one event at a time: a minute of
 * samples is tens of megabytes of JSON. Samples before {@code from} are left out (a dump holds whole chunks, which may
 * begin before the instant asked for).
 */
public final class JfrTop {

    /** Thread-name prefixes by group, in the order they are tried (JFR gives the Java names, not the 15-char ones). */
    private static final List<Map.Entry<String, List<String>>> GROUPS = List.of(
            Map.entry("bcrypt", List.of("bcrypt")),
            Map.entry("event loop", List.of("vert.x-eventloop")),
            Map.entry("database", List.of("database")),
            Map.entry("JIT", List.of("C1 CompilerThread", "C2 CompilerThread")),
            Map.entry("GC", List.of("GC Thread", "G1 ", "VM Thread")));

    public record Counts(long samples, Map<String, Long> frames, Map<String, Long> groups) {
    }

    private JfrTop() {
    }

    static String group(String threadName) {
        for (Map.Entry<String, List<String>> g : GROUPS) {
            if (g.getValue().stream().anyMatch(threadName::startsWith)) {
                return g.getKey();
            }
        }
        return "other";
    }

    public static Counts count(InputStream json, Instant from) throws IOException {
        Map<String, Long> frames = new LinkedHashMap<>();
        Map<String, Long> groups = new LinkedHashMap<>();
        long samples = 0;
        try (JsonParser parser = Json.MAPPER.getFactory().createParser(json)) {
            while (parser.nextToken() != null) {
                if (parser.currentToken() != JsonToken.FIELD_NAME || !"events".equals(parser.currentName())) {
                    continue;
                }
                if (parser.nextToken() != JsonToken.START_ARRAY) {
                    continue;
                }
                while (parser.nextToken() == JsonToken.START_OBJECT) {
                    JsonNode values = ((JsonNode) parser.readValueAsTree()).path("values");
                    if (from != null && values.hasNonNull("startTime")
                            && Instant.parse(values.path("startTime").asText()).isBefore(from)) {
                        continue;
                    }
                    JsonNode top = values.path("stackTrace").path("frames").path(0).path("method");
                    String frame = top.isMissingNode() ? "(no stack)"
                            : top.path("type").path("name").asText().replace('/', '.') + "." + top.path("name").asText();
                    frames.merge(frame, 1L, Long::sum);
                    groups.merge(group(values.path("sampledThread").path("javaName").asText("")), 1L, Long::sum);
                    samples++;
                }
            }
        }
        return new Counts(samples, frames, groups);
    }

    /** The top {@code top} frames by samples, then every thread group, each with its share of the samples. */
    public static String report(Counts counts, int top) {
        StringBuilder out = new StringBuilder();
        out.append(String.format("execution samples: %d%n", counts.samples()));
        if (counts.samples() == 0) {
            return out.toString();
        }
        out.append(String.format("  %6s %8s  %s%n", "share", "samples", "top frame"));
        counts.frames().entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .limit(top).forEach(e -> out.append(row(e, counts.samples())));
        out.append(String.format("  %6s %8s  %s%n", "share", "samples", "thread group"));
        counts.groups().entrySet().stream()
                .sorted(Map.Entry.<String, Long>comparingByValue().reversed().thenComparing(Map.Entry.comparingByKey()))
                .forEach(e -> out.append(row(e, counts.samples())));
        return out.toString();
    }

    private static String row(Map.Entry<String, Long> e, long total) {
        return String.format("  %5s%% %8d  %s%n", Numbers.fixed(e.getValue() * 100.0 / total, 1), e.getValue(), e.getKey());
    }
}
