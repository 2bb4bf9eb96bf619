package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

/**
 * {@code make size} (scripts/size.py) computes with the chart's formulas: the values it prints
 * for a large fleet render, the chart's own sums for them (client and server connections, EMQX's derived pool_size)
 * are the numbers it printed, and its PgBouncer limit is the smallest the chart accepts.
 */
class SizingAgreesWithChartTest {

    @Test
    void thePrintedValuesRenderAndTheChartsSumsAreThePrintedOnes() throws Exception {
        // Large enough that the PgBouncer limit comes from the formula, not from values.yaml's floor (200), whatever
        // the documented per-core figures: otherwise "one less is refused" cannot hold.
        JsonNode size = size("--devices", "4000000", "--window", "300", "--known", "0.9");
        JsonNode figures = new ObjectMapper().readTree(Chart.REPO.resolve("docs/figures.json").toFile());
        assertEquals(figures.at("/cold_allows_per_core/value").asDouble(), size.get("cold_per_core").asDouble(),
                "make size plans with docs/figures.json's cold figure");
        assertEquals(figures.at("/known_allows_per_core/value").asDouble(), size.get("known_per_core").asDouble(),
                "make size plans with docs/figures.json's known figure");
        int replicas = size.get("auth_replicas").asInt();
        int maxClientConn = size.get("pgbouncer_max_client_conn").asInt();
        int maxConnections = size.get("postgresql_max_connections").asInt();
        assertTrue(replicas > 6, "a fleet this large needs more than the default replicas: " + size);
        assertTrue(maxClientConn > 200, "the fleet no longer needs more than the default max_client_conn: " + size);
        Map<String, Object> printed = Chart.set("authService.autoscaling.maxReplicas", replicas,
                "pgbouncer.maxClientConn", maxClientConn, "postgresql.maxConnections", maxConnections);
        Chart.render(printed);

        Map<String, Object> tooFewClients = Chart.set("authService.autoscaling.maxReplicas", replicas,
                "pgbouncer.maxClientConn", maxClientConn - 1, "postgresql.maxConnections", maxConnections);
        String clients = Chart.refusal(tooFewClients);
        assertEquals(size.get("client_connections").asInt(), number(clients, "client connections, (\\d+) in all"));

        Map<String, Object> tooFewServers = Chart.set("authService.autoscaling.maxReplicas", replicas,
                "pgbouncer.maxClientConn", maxClientConn, "postgresql.maxConnections", 10);
        assertEquals(size.get("server_connections").asInt(),
                number(Chart.refusal(tooFewServers), "more, (\\d+) in all"));

        String notes = NotesTest.notes(printed);
        assertEquals(size.get("emqx_pool_size").asInt(), number(notes, "x pool_size (\\d+) \\(derived\\)"), notes);
        assertEquals(size.get("emqx_in_flight").asInt(), number(notes, "= (\\d+) in flight"), notes);
    }

    private static int number(String text, String regex) {
        Matcher matcher = Pattern.compile(regex).matcher(text);
        assertTrue(matcher.find(), "/" + regex + "/ not in: " + text);
        return Integer.parseInt(matcher.group(1));
    }

    /** scripts/size.py --json with the figures of docs/figures.json (no bench output: a missing directory). */
    private static JsonNode size(String... args) throws Exception {
        java.util.List<String> command = new java.util.ArrayList<>(java.util.List.of("python3",
                Chart.REPO.resolve("scripts/size.py").toString(), "--json", "--bench", "/nonexistent-bench-output"));
        command.addAll(java.util.List.of(args));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), output);
        return new ObjectMapper().readTree(output);
    }
}
