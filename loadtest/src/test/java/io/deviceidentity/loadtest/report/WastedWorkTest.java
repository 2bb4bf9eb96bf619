package io.deviceidentity.loadtest.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deviceidentity.loadtest.metrics.MetricsSnapshot;

class WastedWorkTest {

    private static MetricsSnapshot at(double done, double wasted) {
        return new MetricsSnapshot(Map.of(WastedWork.BCRYPTS_DONE, done, WastedWork.BCRYPTS_WASTED, wasted), null);
    }

    @Test
    void lateAllowsPlusTheServicesOwnWastedCountOverBcryptsDone() {
        WastedWork w = WastedWork.between(at(1_000, 10), at(1_400, 50), 60);
        // (60 late 200s + 40 finished after a 503 deadline) / 400 bcrypts in the window
        assertEquals(0.25, w.fraction());
        assertEquals(400.0, w.bcryptsDone());
        assertEquals(40.0, w.bcryptsWastedByService());
        assertEquals(List.of(), w.missing());
    }

    @Test
    void aMissingWastedCounterCountsAsZeroAndIsNamed() {
        MetricsSnapshot start = new MetricsSnapshot(Map.of(WastedWork.BCRYPTS_DONE, 100.0), null);
        MetricsSnapshot end = new MetricsSnapshot(Map.of(WastedWork.BCRYPTS_DONE, 300.0), null);
        WastedWork w = WastedWork.between(start, end, 50);
        assertEquals(0.25, w.fraction());
        assertNull(w.bcryptsWastedByService());
        assertEquals(List.of(WastedWork.BCRYPTS_WASTED), w.missing());
    }

    @Test
    void noBcryptCountMeansNoFraction() {
        WastedWork w = WastedWork.between(new MetricsSnapshot(Map.of(), null), new MetricsSnapshot(Map.of(), null), 5);
        assertNull(w.fraction());
        assertEquals(List.of(WastedWork.BCRYPTS_DONE, WastedWork.BCRYPTS_WASTED), w.missing());
    }

    @Test
    void aFailedScrapeIsReportedNotThrown() {
        WastedWork w = WastedWork.between(MetricsSnapshot.failed("connection refused"), at(1, 1), 5);
        assertNull(w.fraction());
        assertEquals("connection refused", w.problem());
        assertEquals(5, w.late200());
    }
}
