package io.deviceidentity.loadtest.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.net.URISyntaxException;
import java.nio.file.Path;

import org.junit.jupiter.api.Test;

/**
 * The late windows and the request rate over time, on the per-second series of a recorded 72 s storm at 8x the
 * capacity of a 1-vCPU pod (15.1 allows/s) behind 28 connections (src/test/resources/bench/pod/pod-1-8x-pool-28.json,
 * cut to the fields read). The expected numbers were summed from the same series with a separate script.
 */
class LateWindowsTest {

    private static LateWindows recorded() throws Exception {
        return LateWindows.of(resource("pod-1-8x-pool-28.json"));
    }

    static Path resource(String name) throws URISyntaxException {
        return Path.of(LateWindowsTest.class.getResource("/bench/pod/" + name).toURI());
    }

    @Test
    void aLateWindowPastTheRunsEndIsCutAtTheEnd() throws Exception {
        LateWindows.Span late = recorded().span("late window", 40, 90, 15.1);
        assertEquals(40, late.from());
        assertEquals(72, late.to());
        assertEquals(503, late.allows());
        assertEquals("1.04", Numbers.fixed(late.perCapacity(), 2));
    }

    @Test
    void theLastSecondsAndTheWholeStormAreCountedFromTheSeries() throws Exception {
        LateWindows windows = recorded();
        LateWindows.Span last = windows.last(30, 15.1);
        assertEquals(42, last.from());
        assertEquals(475, last.allows());
        assertEquals("1.05", Numbers.fixed(last.perCapacity(), 2));
        LateWindows.Span whole = windows.whole(15.1);
        assertEquals(1019, whole.allows());
        assertEquals("0.94", Numbers.fixed(whole.perCapacity(), 2));
        assertNull(windows.span("after the end", 72, 90, 15.1));
    }

    @Test
    void theRequestRateGrowsWithTheRetryingPopulation() throws Exception {
        assertEquals("""
                goodput / capacity (15.10/s): late window (40-72 s) 1.04 (15.7/s), last 30 s (42-72 s) 1.05 (15.8/s), whole storm (0-72 s) 0.94 (14.2/s)
                  seconds    offered/s  answered/s  allowed/s  refused/s  timeouts/s
                  0-10           124.1       123.8       12.2      111.6         0.0
                  10-20          216.1       212.8       13.0      199.8         0.0
                  20-30          301.3       304.0       13.5      290.5         0.0
                  30-40          383.0       383.3       12.9      370.4         0.0
                  40-50          464.5       464.1       14.8      449.3         0.0
                  50-60          568.7       568.7       16.0      552.7         0.0
                  60-70          663.7       663.8       16.2      647.6         0.0
                  70-72          670.0       671.0       16.5      654.5         0.0
                """, recorded().report(15.1, 40, 90, 30, 10));
    }

    @Test
    void aSummaryWithoutASeriesSaysSo() throws Exception {
        assertEquals("goodput / capacity: no per-second series\n",
                LateWindows.of(resource("pod-1-8x-pool-8.json")).report(13, 40, 90, 30, 10));
    }
}
