package io.deviceidentity.loadtest.fastpath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;

import io.deviceidentity.loadtest.report.Json;

/**
 * The known-device and mixed storms' tables and their goals (KnownStorm, MixedStorm), and their report (StormReport),
 * from summary.json and pgbench output.
 */
class StormsTest {

    private static final double CAPACITY = 13.0;

    private static JsonNode json(String text) throws Exception {
        return Json.MAPPER.readTree(text);
    }

    private static JsonNode closed(int users, double goodput, double p99) throws Exception {
        return json("""
                {"settings": {"model": "closed-loop", "closed_loop_users": %d, "pool_size": 64, "pipelining": 1},
                 "steady_state": {"goodput": %s, "offered_rate": %s, "outcomes": {"200 allow": 100, "503 overload": 7},
                   "latency_allow": {"count": 100, "p50_ms": 5.0, "p99_ms": %s}},
                 "whole_run": {"max_generator_lag_ms": 12}}""".formatted(users, goodput, goodput + 7, p99));
    }

    private static JsonNode open(double rate, double goodput, double p99) throws Exception {
        return json("""
                {"settings": {"model": "open", "rate": %s, "pool_size": 64, "pipelining": 1},
                 "steady_state": {"goodput": %s, "offered_rate": %s, "outcomes": {"200 allow": 100, "timeout": 0},
                   "latency_allow": {"count": 100, "p50_ms": 1.5, "p99_ms": %s}},
                 "whole_run": {"max_generator_lag_ms": 3}}""".formatted(rate, goodput, rate, p99));
    }

    private static KnownStorm known(Map<String, JsonNode> runs, List<PgbenchResult> pgbench) {
        return new KnownStorm(CAPACITY, runs, pgbench, 4);
    }

    private static StormReport report(KnownStorm known) {
        return new StormReport(CAPACITY, known, new MixedStorm(CAPACITY, Map.of()));
    }

    private static final PgbenchResult SIMPLE = new PgbenchResult("simple-c10", "simple", 10, 1, 50_000, 0, 1.9, 5000);
    private static final PgbenchResult EXTENDED = new PgbenchResult("extended-c10", "extended", 10, 1, 45_000, 0, 2.1,
            4500);

    @Test
    void theHeadlineIsTheBestClosedLoopOverTheBestPgbench() throws Exception {
        Map<String, JsonNode> runs = new LinkedHashMap<>();
        runs.put("known-closed-16", closed(16, 2000, 40));
        runs.put("known-closed-32", closed(32, 2600, 60));
        runs.put("known-open-500", open(500, 499, 4));
        runs.put("known-open-1000", open(1000, 998, 9));
        runs.put("known-open-2000", open(2000, 1990, 25));
        KnownStorm storms = known(runs, List.of(SIMPLE, EXTENDED));

        assertEquals(2600, storms.serviceMax());
        assertEquals(SIMPLE, storms.bestPgbench(), "the strictest denominator");
        List<List<String>> rows = storms.rows();
        assertEquals(KnownStorm.HEADER, rows.get(0));
        assertEquals(List.of("known-closed-32", "closed 32 users, 64x1", "2607", "2600", "200", "0.52", "5.00", "60.0",
                "(closed)", "503 overload 7", "12"), rows.get(2));
        assertEquals("PASS", rows.get(3).get(8));
        assertEquals("FAIL", rows.get(5).get(8));
        assertEquals(List.of("extended-c10", "extended", "10", "1", "4500", "2.10", "0", "0.58"),
                storms.pgbenchRows().get(2));

        List<Goal> goals = storms.goals();
        assertEquals(Boolean.TRUE, goals.get(0).pass(), "2600 / 5000 = 0.52 >= 0.5: " + goals.get(0));
        assertEquals(Boolean.TRUE, goals.get(1).pass(), "2600 / 13 = 200 >= 100");
        assertEquals(Boolean.FALSE, goals.get(2).pass(), "the 2000/s step's p99 is 25 ms");
        assertEquals(998, storms.throughputWithinP99(), "the highest step within 20 ms, all lower ones too");
        assertEquals(Boolean.FALSE, goals.get(3).pass(), "998 < max(1300, 2500)");
        String text = report(storms).text();
        assertTrue(text.contains("ratio service / pgbench = 0.52"), text);
        assertTrue(text.contains("bcrypt cost 4"), text);
    }

    @Test
    void aStepThatDidNotKeepUpEndsTheThroughputWithinTheLatencyGoal() throws Exception {
        Map<String, JsonNode> runs = new LinkedHashMap<>();
        runs.put("known-open-1000", open(1000, 990, 3));
        runs.put("known-open-2000", open(2000, 1500, 10)); // fast answers, but a quarter of the arrivals not served
        runs.put("known-open-4000", open(4000, 1600, 15));
        KnownStorm storms = known(runs, List.of());
        assertEquals(990, storms.throughputWithinP99());
        assertEquals("PASS (not sustained)", storms.rows().get(2).get(8));
        assertEquals(null, storms.goals().get(0).pass(), "no pgbench: not judged");
    }

    private static JsonNode mixed(double rate, long knownFirst, long knownFirstAllowed, double coldDemand,
            double coldGoodput) throws Exception {
        return json("""
                {"settings": {"model": "open", "rate": %s, "parts": {"known": {"share": 0.9}, "cold": {"share": 0.1}}},
                 "steady_state": {"parts": {
                   "known": {"demand": %s, "first_attempts": %d, "first_attempt_allows": %d,
                     "first_attempt_success_share": %s, "latency_allow": {"count": 10, "p99_ms": 250.0}},
                   "cold": {"demand": %s, "goodput": %s, "latency_allow": {"count": 10, "p99_ms": 900.0}}}},
                 "whole_run": {"max_generator_lag_ms": 5}}""".formatted(rate, rate * 0.9, knownFirst, knownFirstAllowed,
                (double) knownFirstAllowed / knownFirst, coldDemand, coldGoodput));
    }

    @Test
    void aStepThatWarmsTheGeneratorFirstIsJudgedAtTheRateItStepsTo() throws Exception {
        // The bench sends a quarter of the rate before the counted window, then steps to the rate.
        JsonNode warmedUp = json("""
                {"settings": {"model": "open", "rate": 250, "step_at": "5s", "step_rate": 1000, "pool_size": 64,
                   "pipelining": 1},
                 "steady_state": {"goodput": 600, "offered_rate": 1000, "outcomes": {"200 allow": 100, "timeout": 0},
                   "latency_allow": {"count": 100, "p50_ms": 1.5, "p99_ms": 9}},
                 "whole_run": {"max_generator_lag_ms": 3}}""");
        Map<String, JsonNode> runs = new LinkedHashMap<>();
        runs.put("known-closed-16", closed(16, 2000, 40));
        runs.put("known-open-1000", warmedUp);
        KnownStorm storms = known(runs, List.of(SIMPLE));

        assertEquals("open 1000/s, 64x1", storms.rows().get(2).get(1));
        assertTrue(Double.isNaN(storms.throughputWithinP99()),
                "600 allows/s at 1000 arrivals/s did not keep up, whatever the warm-up rate was");
    }

    @Test
    void theMixedStormJudgesTheKnownFirstAttemptsAndTheColdGoodput() throws Exception {
        Map<String, JsonNode> runs = new LinkedHashMap<>();
        runs.put("mixed-8x", mixed(104, 4700, 4700, 10.6, 10.2));
        runs.put("mixed-20x", mixed(260, 11000, 10990, 26.0, 12.0));
        MixedStorm storms = new MixedStorm(CAPACITY, runs);

        List<Goal> eight = storms.goals("mixed-8x");
        assertEquals(Boolean.TRUE, eight.get(0).pass());
        assertEquals(Boolean.TRUE, eight.get(1).pass(), "cold demand 10.6 < capacity: 10.2 >= 0.95 x 10.6");
        assertTrue(eight.get(1).target().contains("cold demand"), eight.get(1).target());
        List<Goal> twenty = storms.goals("mixed-20x");
        assertEquals(Boolean.FALSE, twenty.get(0).pass(), "10 known devices needed a second attempt");
        assertEquals(Boolean.FALSE, twenty.get(1).pass(), "cold demand above capacity: 12.0 < 0.95 x 13");
        assertTrue(twenty.get(1).target().contains("capacity"), twenty.get(1).target());

        assertEquals(List.of("mixed-8x", "104 (8.0x)", "93.6", "100.0 %", "250", "10.6 (0.8x)", "10.2 (0.8x)",
                ">= 10.1", "5"), storms.rows().get(1));
        assertTrue(storms.notes().get(0).contains("cold 10.4/s (10 %) = 0.8x capacity, below capacity"),
                storms.notes().get(0));
        JsonNode json = new StormReport(CAPACITY, new KnownStorm(CAPACITY, Map.of(), List.of(), null), storms).json();
        assertEquals(4, json.path("mixed_storm").path("goals").size());
    }
}
