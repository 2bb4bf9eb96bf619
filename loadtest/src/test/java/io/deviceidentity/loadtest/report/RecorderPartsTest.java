package io.deviceidentity.loadtest.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deviceidentity.loadtest.emqx.Answer;

/** Per-part figures of a population of several parts, as the mixed storm reports them. */
class RecorderPartsTest {

    private static final Answer ALLOW = new Answer(200, "allow");
    private static final Answer OVERLOAD = new Answer(503, "overload");
    private static final long MS = Duration.ofMillis(1).toNanos();
    private static final int KNOWN = 0;
    private static final int COLD = 1;

    @Test
    void eachPartGetsItsFirstAttemptSuccessGoodputAndLatency() {
        Recorder recorder = new Recorder(List.of("known", "cold"));
        recorder.startCounting();
        // second 1, before the steady state: counted in the whole run only
        recorder.freshAttempt(COLD);
        recorder.attemptEnded(COLD, true, OVERLOAD, 2 * MS);
        recorder.closeSecond(0, 0, null, null, 0, 0);
        recorder.startSteadyState();
        // seconds 2-3: 4 known arrivals, all allowed at once; 2 cold arrivals (one refused) and one retry allowed
        for (int i = 0; i < 4; i++) {
            recorder.freshAttempt(KNOWN);
            recorder.attemptEnded(KNOWN, true, ALLOW, (i + 1) * MS);
        }
        recorder.freshAttempt(COLD);
        recorder.attemptEnded(COLD, true, ALLOW, 80 * MS);
        recorder.freshAttempt(COLD);
        recorder.attemptEnded(COLD, true, OVERLOAD, 3 * MS);
        recorder.closeSecond(0, 0, null, null, 0, 0);
        recorder.retryAttempt(COLD);
        recorder.attemptEnded(COLD, false, ALLOW, 90 * MS);
        recorder.attemptEnded(COLD, false, Answer.TIMEOUT, 10_500 * MS);
        recorder.closeSecond(0, 0, null, null, 0, 0);
        recorder.stop();

        WindowSummary steady = recorder.steadyState(new SteadyStateWindow(1, 3, "test", false), 2.0, null);
        PartSummary known = steady.parts().get("known");
        PartSummary cold = steady.parts().get("cold");
        assertEquals(List.of("known", "cold"), List.copyOf(steady.parts().keySet()));
        assertEquals(4, known.firstAttempts());
        assertEquals(1.0, known.firstAttemptSuccessShare());
        assertEquals(2.0, known.goodput(), "4 allows in 2 s");
        assertEquals(2.0, known.demand());
        assertEquals(4.0, known.latencyAllow().p99Ms(), 0.1);
        assertEquals(2, cold.firstAttempts());
        assertEquals(0.5, cold.firstAttemptSuccessShare());
        assertEquals(1, cold.retries());
        assertEquals(2, cold.allows());
        assertEquals(1.0, cold.goodput());
        assertEquals(0.5, cold.goodputPerCapacity(), "against a capacity of 2/s");
        assertEquals(0.5, cold.demandPerCapacity());
        assertEquals(Map.of("200 allow", 2L, "503 overload", 1L, "timeout", 1L), cold.results());

        WindowSummary whole = recorder.wholeRun(0, 3, 2.0, null);
        assertEquals(3, whole.parts().get("cold").firstAttempts(), "the whole run has the first second's refusal");
        assertEquals(3, whole.parts().get("cold").freshAttempts());
    }

    @Test
    void aPopulationOfOnePartHasNoPartFigures() {
        Recorder recorder = new Recorder(List.of("all"));
        recorder.startCounting();
        recorder.freshAttempt(0);
        recorder.attemptEnded(0, true, ALLOW, MS);
        recorder.closeSecond(0, 0, null, null, 0, 0);
        assertNull(recorder.wholeRun(0, 1, null, null).parts());
    }
}
