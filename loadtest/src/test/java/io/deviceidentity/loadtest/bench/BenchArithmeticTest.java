package io.deviceidentity.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.MetricSelector;
import io.deviceidentity.metrics.PrometheusText;

/**
 * The bench's figures as scripts/bench.sh computed them in awk before they moved here: every expected value below is
 * what the shell arithmetic printed for the same input (the awk of bench.sh/bench-pods.sh run on these numbers and on
 * the recorded metrics pages under src/test/resources/bench/: build-checks' e2e samples, and two pages a real
 * auth-service served around a capacity run).
 */
class BenchArithmeticTest {

    private static String resource(String name) throws IOException {
        try (InputStream in = BenchArithmeticTest.class.getResourceAsStream("/bench/" + name)) {
            return new String(in.readAllBytes(), StandardCharsets.UTF_8);
        }
    }

    @Test
    void pointRatesAndDevicesAreTheShellsOnes() {
        assertEquals("106.2 106.2 9559", BenchArithmetic.point(13.27, 8, null, "72s", "").line());
        assertEquals("13.3 106.2 9559", BenchArithmetic.point(13.27, 1, 8.0, "72s", "").line(), "a step: devices for the peak");
        assertEquals("0.5 0.5 2000", BenchArithmetic.point(0.05, 1, null, "72s", "").line(), "never below 0.5/s");
        assertEquals("1.2 1.2 2000", BenchArithmetic.point(1.25, 1, null, "72s", "").line(), "printf rounds a tie to even");
        assertEquals("699.6 699.6 62965", BenchArithmetic.point(58.3, 12, null, "72s", "").line());
        assertEquals("106.2 106.2 2656", BenchArithmetic.point(13.27, 8, null, "20s", null).line());
        assertEquals("106.2 106.2 11948", BenchArithmetic.point(13.27, 8, null, "1.5m", null).line());
        assertEquals("106.2 106.2 11948", BenchArithmetic.point(13.27, 8, null, "90", null).line());
        assertEquals("699.6 699.6 2000", BenchArithmetic.point(58.3, 12, null, "500ms", null).line(), "whole seconds only");
        assertEquals("106.2 106.2 5000", BenchArithmetic.point(13.27, 8, null, "72s", "5000").line(), "BENCH_DEVICES");
    }

    @Test
    void theMixedStormsSharesAreTheShellsOnes() {
        assertEquals("106.2 10.62 0.9 2000 8603", BenchArithmetic.mixed(13.27, 8, 0.1, "72s", "").line());
        assertEquals("466.4 46.64 0.9 4198 37779", BenchArithmetic.mixed(58.3, 8, 0.1, "72s", "").line());
        assertEquals("106.2 35.36 0.667 3183 6376", BenchArithmetic.mixed(13.27, 8, 0.333, "72s", "").line());
        assertEquals("4000.0 400.00 0.9 30001 270001", BenchArithmetic.mixed(100, 40, 0.1, "1m", "").line());
    }

    @Test
    void theKnownStormsOpenStepsAreTheShellsOnes() {
        assertEquals(List.of(650L, 1310L, 1960L, 2610L),
                BenchArithmetic.knownRates(List.of(2612.345678, 2400.5), List.of(0.25, 0.5, 0.75, 1.0)));
        assertEquals(List.of(660L, 1310L, 1970L, 2630L),
                BenchArithmetic.knownRates(List.of(2625.0), List.of(0.25, 0.5, 0.75, 1.0)));
        assertEquals(List.of(10L, 10L), BenchArithmetic.knownRates(List.of(12.5), List.of(0.25, 1.0)), "at least 10/s");
        assertEquals(List.of(617280L), BenchArithmetic.knownRates(List.of(1234567.89), List.of(0.5)),
                "the best run's goodput as its summary has it");
    }

    @Test
    void aPodsThreadsQuotaAndCpusAreTheShellsOnes() {
        assertEquals(List.of(1, 1, 1, 2, 2), List.of(0.25, 0.5, 1.0, 1.5, 2.0).stream().map(BenchArithmetic::threads).toList());
        assertEquals(List.of(25000L, 50000L, 100000L, 150000L), List.of(0.25, 0.5, 1.0, 1.5).stream()
                .map(c -> BenchArithmetic.quota(c, 100000)).toList());
        assertEquals("0", BenchArithmetic.pin(0.25, "0", 2));
        assertEquals("0", BenchArithmetic.pin(1, "0", 2));
        assertEquals("0-1", BenchArithmetic.pin(2, "0", 2));
        assertEquals("0,1", BenchArithmetic.pin(2, "0,1", 4));
        assertEquals("0-3", BenchArithmetic.pin(3, "0-1", 4));
        assertEquals("0-1", BenchArithmetic.pin(2, "0-1", 4));
    }

    @Test
    void theBcryptBoundCapacityFromRecordedPagesIsTheShellsOne() throws IOException {
        String before = resource("no-bcrypt.prom");
        String after = resource("bcrypt-1000.prom");
        MetricSelector sum = MetricSelector.parse("identity_bcrypt_duration_seconds_sum");
        MetricSelector count = MetricSelector.parse("identity_bcrypt_duration_seconds_count");
        double s0 = PrometheusText.sum(before, sum);
        double c0 = PrometheusText.sum(before, count);
        double s1 = PrometheusText.sum(after, sum);
        double c1 = PrometheusText.sum(after, count);
        assertEquals("11.76", BenchArithmetic.bcryptBound(BenchArithmetic.threads(0.25), s0, c0, s1, c1));
        assertEquals("11.76", BenchArithmetic.bcryptBound(BenchArithmetic.threads(1), s0, c0, s1, c1));
        assertEquals("23.53", BenchArithmetic.bcryptBound(BenchArithmetic.threads(2), s0, c0, s1, c1));
        assertEquals("-", BenchArithmetic.bcryptBound(1, s1, c1, s1, c1), "no check timed in between");
    }

    /** Pages auth-service served before and after a capacity run of scripts/bench.sh (1 vCPU pod, 10 s). */
    @Test
    void theBcryptBoundCapacityOfARealCapacityRunIsTheShellsOne() throws IOException {
        String before = resource("capacity-before.prom");
        String after = resource("capacity-after.prom");
        MetricSelector sum = MetricSelector.parse("identity_bcrypt_duration_seconds_sum");
        MetricSelector count = MetricSelector.parse("identity_bcrypt_duration_seconds_count");
        assertEquals("14.04", BenchArithmetic.bcryptBound(1, PrometheusText.sum(before, sum), PrometheusText.sum(before, count),
                PrometheusText.sum(after, sum), PrometheusText.sum(after, count)));
    }

    @Test
    void theMeanTimePerAnswerFromRecordedPagesIsTheShellsOne() throws IOException {
        String before = resource("storm-before.prom");
        String after = resource("storm-after.prom");
        MetricSelector sum = MetricSelector.parse(
                "http_server_requests_seconds_sum{method=\"POST\",outcome=\"SUCCESS\",status=\"200\",uri=\"/mqtt/authn\"}");
        MetricSelector count = MetricSelector.parse(
                "http_server_requests_seconds_count{method=\"POST\",outcome=\"SUCCESS\",status=\"200\",uri=\"/mqtt/authn\"}");
        assertEquals("known-closed-10: mean time inside auth-service per 200 answer (http_server_requests_seconds): 90.00 ms",
                BenchArithmetic.meanTimeNote("known-closed-10", PrometheusText.sum(before, sum),
                        PrometheusText.sum(before, count), PrometheusText.sum(after, sum), PrometheusText.sum(after, count)));
        assertNull(BenchArithmetic.meanTimeNote("x", 1, 5, 1, 5), "no answer in between: no note");
        MetricSelector answers = MetricSelector.parse("identity_authn_outcomes_total");
        assertEquals(161, PrometheusText.sum(after, answers) - PrometheusText.sum(before, answers));
    }

    @Test
    void sumsRatiosAndThrottlingAreTheShellsOnes() {
        assertEquals("16.01", BenchArithmetic.sum(List.of(6.335, 6.345, 3.3333)), "two decimals at each step");
        assertEquals("1200 340 5123", BenchArithmetic.throttling("nr_periods 1200\nnr_throttled 340\nthrottled_time 5123456789\n"));
        assertEquals("900 12 46", BenchArithmetic.throttling("usage_usec 100\nnr_periods 900\nnr_throttled 12\nthrottled_usec 45678\n"));
        assertEquals("tls-protected-8x: steady goodput 98.7 allows/s over HTTPS against 104.2 over plain HTTP "
                + "(plain-protected-8x): TLS/plain 0.95; 8 handshakes (one per kept-alive connection) for 7488 requests",
                BenchArithmetic.tlsLine("plain-protected-8x", "tls-protected-8x", "104.25", "98.7", 8, "7488"));
        assertEquals("tls-x: steady goodput 98.7 allows/s; plain-x (plain HTTP) was not run, no ratio (BENCH_ONLY)",
                BenchArithmetic.tlsLine("plain-x", "tls-x", null, "98.7", 8, "7488"));
    }

    private static final String STAT_PREFIX = "4242 (java) S 1 4242 4242 0 -1 4194560 100 0 0 0 ";

    @Test
    void theCpuNoteIsTheShellsOne() {
        CpuSpan.Snapshot before = CpuSpan.Snapshot.parse("time 1000.000000000\nauth " + STAT_PREFIX + "600 400 0 0 20 0\n"
                + "postgres 77 (postgres) S " + "1 ".repeat(10) + "300 200 0 0\n" + "pgbouncer 78 (pgbouncer) S "
                + "1 ".repeat(10) + "60 40 0 0\n" + "core_auth cpu0 1000 10 500 8000 20 5 7 0 0 0\n"
                + "core_load cpu1 3000 0 600 900 10 1 1 0 0 0\n", "0m0.010s 0m0.020s\n0m1.250s 0m0.500s\n");
        CpuSpan.Snapshot after = CpuSpan.Snapshot.parse("time 1020.500000000\nauth " + STAT_PREFIX + "1900 1050 0 0 20 0\n"
                + "postgres 77 (postgres) S " + "1 ".repeat(10) + "700 500 0 0\n" + "postgres 79 (postgres: x) S "
                + "1 ".repeat(10) + "60 40 0 0\n" + "pgbouncer 78 (pgbouncer) S " + "1 ".repeat(10) + "150 110 0 0\n"
                + "core_auth cpu0 2900 12 800 8100 22 9 11 0 0 0\n" + "core_load cpu1 5000 0 900 1000 10 1 1 0 0 0\n",
                "0m0.010s 0m0.020s\n0m25.125s 0m3.000s\n");
        assertEquals("CPU known-closed-10 (20 s, 15000 answers): CPU 0 busy 96 % (auth-service 95 %), CPU 1 busy 96 % "
                + "(PostgreSQL 39 %, PgBouncer 8 %, load generator 129 %); CPU us per answer: auth-service 1300, "
                + "PostgreSQL 533, PgBouncer 107, load generator 1758 (with its JVM start)",
                CpuSpan.note(before, after, 100, 15000, "answers", "load generator", "known-closed-10", "0", "1"));
        assertEquals("CPU known-closed-10 (20 s, 0 answers): CPU 0 busy 96 % (auth-service 95 %), CPU 1 busy 96 % "
                + "(PostgreSQL 39 %, PgBouncer 8 %, load generator 129 %); CPU us per answer: auth-service -, "
                + "PostgreSQL -, PgBouncer -, load generator - (with its JVM start)",
                CpuSpan.note(before, after, 100, 0, "answers", "load generator", "known-closed-10", "0", "1"));
        assertEquals("CPU known-closed-10 (20 s, 52000 transactions): CPU 0 busy 96 % (auth-service 95 %), CPU 1 busy "
                + "96 % (PostgreSQL 39 %, PgBouncer 8 %, pgbench 129 %); CPU us per transaction: auth-service 375, "
                + "PostgreSQL 154, PgBouncer 31, pgbench 507",
                CpuSpan.note(before, after, 100, 52000, "transactions", "pgbench", "known-closed-10", "0", "1"));
    }
}
