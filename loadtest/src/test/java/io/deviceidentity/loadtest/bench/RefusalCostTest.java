package io.deviceidentity.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.nio.file.Files;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * CPU per refused answer from thread-cpu.py snapshots (clock ticks, CLK_TCK 100) and the answers of the runs'
 * per-second series: what the process spent beyond bcrypt, less what the window's allows cost beyond bcrypt in the
 * capacity run, over the refused answers.
 */
class RefusalCostTest {

    @Test
    void theRefusalsPayWhatIsLeftAfterBcryptAndTheAllows(@TempDir Path dir) throws Exception {
        // Capacity run: 20 s of process CPU, 19 of it bcrypt, 200 allows: 1 s / 200 = 5000 us per allow.
        Path capacity = summary(dir, "capacity", 0, second(120, 0, 0), second(80, 0, 0));
        // Window (seconds 40..): 50 s, 38 of it bcrypt, 590 allows, 10 late, 30 000 refusals:
        // (12 s - 600 x 5000 us) / 30 000 = 300 us; all but bcrypt: 12 s / 30 600 answers = 392 us.
        Path storm = summary(dir, "storm", 40, second(300, 15000, 5), second(290, 15000, 5));
        RefusalCost.Result result = RefusalCost.of(
                RefusalCost.Span.read(snapshot(dir, "cap-before", 1000, 900, 1100),
                        snapshot(dir, "cap-after", 2900, 950, 3100), capacity, 0),
                RefusalCost.Span.read(snapshot(dir, "win-before", 5000, 1000, 6500),
                        snapshot(dir, "win-after", 8800, 1000, 11500), storm, 40));
        assertEquals("5000", Numbers.fixed(result.notBcryptPerAllowUs(), 0));
        assertEquals("300", result.figure());
        assertEquals("CPU per refused answer: 300 us (window: process 50.00 s, bcrypt threads 38.00 s, 600 allows x 5000 us"
                + " not bcrypt each as in the capacity run (1.00 s beside bcrypt over 200 allows), 30000 refused"
                + " answers); all but bcrypt per answer: 392 us", result.line());
    }

    @Test
    void withoutAProcessTotalTheThreadsAreSummed() throws Exception {
        RefusalCost.ThreadCpu snap = RefusalCost.ThreadCpu.parse("{\"clk_tck\": 100, \"ticks\": {\"bcrypt\": 7, \"other\": 3}}");
        assertEquals(10, snap.process());
    }

    @Test
    void noRefusalsNoFigure(@TempDir Path dir) throws Exception {
        Path capacity = summary(dir, "capacity", 0, second(10, 0, 0));
        RefusalCost.Span span = RefusalCost.Span.read(snapshot(dir, "a", 0, 0, 0), snapshot(dir, "b", 100, 0, 120),
                capacity, 0);
        RefusalCost.Result result = RefusalCost.of(span, span);
        assertNull(result.perRefusalUs());
        assertEquals("-", result.figure());
    }

    private static Path snapshot(Path dir, String name, long bcrypt, long jit, long process) throws Exception {
        return Files.writeString(dir.resolve(name + ".json"), String.format(
                "{\"clk_tck\": 100, \"ticks\": {\"bcrypt\": %d, \"JIT\": %d, \"event loop\": 5}, \"process\": %d}",
                bcrypt, jit, process));
    }

    private static String second(long allows, long overload, long late) {
        return String.format("{\"goodput\": %d, \"answers\": {\"200 allow\": %d, \"503 overload\": %d, \"transport_error\": 1},"
                + " \"answers_after_timeout\": %d}", allows, allows, overload, late);
    }

    /** A summary whose first {@code quiet} seconds are empty, then the given ones. */
    private static Path summary(Path dir, String name, int quiet, String... seconds) throws Exception {
        StringBuilder series = new StringBuilder();
        for (int i = 0; i < quiet; i++) {
            series.append("{\"goodput\": 7, \"answers\": {\"503 overload\": 9}},");
        }
        series.append(String.join(",", seconds));
        return Files.writeString(dir.resolve(name + ".json"), "{\"seconds\": [" + series + "]}");
    }
}
