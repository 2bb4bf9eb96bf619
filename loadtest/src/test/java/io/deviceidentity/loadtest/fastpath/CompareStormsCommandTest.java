package io.deviceidentity.loadtest.fastpath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deviceidentity.loadtest.LoadTest;

/** {@code compare} with only the fast path's storms (BENCH_ONLY=known-storm,mixed-storm has no overload run). */
class CompareStormsCommandTest {

    @TempDir
    Path dir;

    private Path file(String name, String text) throws Exception {
        Path file = dir.resolve(name);
        Files.writeString(file, text);
        return file;
    }

    @Test
    void theStormsAloneAreATableOfTheirOwn() throws Exception {
        Path capacity = file("capacity.json", """
                {"settings": {"model": "closed-loop"}, "steady_state": {"goodput": 13.0}, "seconds": []}""");
        Path closed = file("closed.json", """
                {"settings": {"model": "closed-loop", "closed_loop_users": 16, "pool_size": 64, "pipelining": 1},
                 "steady_state": {"goodput": 2600, "offered_rate": 2600, "outcomes": {"200 allow": 100},
                   "latency_allow": {"count": 100, "p50_ms": 5.0, "p99_ms": 12.0}},
                 "whole_run": {"max_generator_lag_ms": 12}, "seconds": []}""");
        Path pgbench = file("pgbench.txt", PgbenchResultTest.OUTPUT);
        Path out = dir.resolve("out");

        assertEquals(0, LoadTest.execute("compare", "--capacity", capacity.toString(), "--known-run",
                "known-closed-16=" + closed, "--pgbench", "simple-c10=" + pgbench, "--known-cost", "4", "--out",
                out.toString()));

        String text = Files.readString(out.resolve("fast-path.txt"));
        assertTrue(text.contains("known-closed-16") && text.contains("simple-c10"), text);
        assertTrue(text.contains("ratio service / pgbench = 0.51"), text);
        assertTrue(Files.readString(out.resolve("fast-path.json")).contains("\"service_per_pgbench\" : 0.506"));
        assertTrue(Files.readString(out.resolve("index.html")).contains("known-closed-16"), "the page shows the storms");
        assertNotEquals(0, LoadTest.execute("compare", "--capacity", capacity.toString(), "--out", out.toString()),
                "nothing to compare");
    }
}
