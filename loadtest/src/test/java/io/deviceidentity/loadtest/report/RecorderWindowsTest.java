package io.deviceidentity.loadtest.report;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deviceidentity.loadtest.emqx.Answer;

/** What the recorder counts in the steady-state window versus the whole run. */
class RecorderWindowsTest {

    private static final Answer ALLOW = new Answer(200, "allow");
    private static final Answer DENY = new Answer(200, "deny");
    private static final Answer OVERLOAD = new Answer(503, "overload");
    private static final Answer BUG = new Answer(500, "http_500");
    private static final long MS = Duration.ofMillis(1).toNanos();

    private final Recorder recorder = new Recorder();

    private void second(Runnable events) {
        events.run();
        recorder.closeSecond(0, 0, null, null, 0, 0);
    }

    @Test
    void theSteadyStateCountsOnlyItsOwnSecondsAndTheWholeRunCountsAll() {
        recorder.startCounting();
        second(() -> { // second 1: before any queue, everything answered
            for (int i = 0; i < 10; i++) {
                recorder.offered();
                recorder.answered(ALLOW, 100 * MS, true);
            }
        });
        recorder.startSteadyState();
        second(() -> { // second 2: collapse: late answers, timeouts, a queued call expired
            recorder.offered();
            recorder.answered(ALLOW, 11_000 * MS, false);
            recorder.offered();
            recorder.answered(DENY, 10_800 * MS, false);
            recorder.offered();
            recorder.answered(OVERLOAD, 5 * MS, true);
            recorder.serviceTime(OVERLOAD, 2 * MS); // 3 ms of the 5 were spent in EMQX's queue
            recorder.offered();
            recorder.answered(BUG, 7 * MS, true);
            recorder.expiredInQueue();
            recorder.jammedConnectionDropped();
            recorder.timedOut();
            recorder.timedOut();
            recorder.timedOut();
            recorder.sampleQueues(40, 9);
        });
        recorder.stop();

        WindowSummary steady = recorder.steadyState(new SteadyStateWindow(1, 2, "test", false), 10.0,
                WastedWork.notMeasured(recorder.steadyLate200(), "off"));
        WindowSummary whole = recorder.wholeRun(0, 2, 10.0, null);

        assertEquals(0.0, steady.goodput(), "no allow arrived in time in the steady state");
        assertEquals(0.0, steady.goodputPerCapacity());
        assertEquals(5.0, whole.goodput(), "the whole run averages the good first second in");
        assertEquals(0.5, whole.goodputPerCapacity());
        assertEquals(Map.of("503 overload", 1L, "500 http_500", 1L, "late", 2L, "expired_in_queue", 1L,
                "timeout", 3L), steady.outcomes());
        assertEquals(Map.of("200 allow", 1L, "200 deny", 1L), steady.lateAnswers());
        assertEquals(1, steady.jammedConnectionsDropped(), "a reconnect, counted apart from the answers");
        assertEquals(2, recorder.steadyLate200(), "late allows and denies both cost a bcrypt");
        assertEquals(1, steady.status5xxOther(), "the 500, not the 503");
        assertEquals(11_000.0, steady.latencyAllow().p99Ms(), 11.0, "latency from entering EMQX's queue, late included");
        assertEquals(1, steady.latency503().count());
        assertEquals(2.0, steady.latency503AtService().p99Ms(), 0.1, "the service's own time, without EMQX's queue");
        assertEquals(40, steady.emqxQueuePeak());
        assertEquals(9, steady.emqxWorkerQueuePeak());
        assertEquals(11, whole.allowsInTime() + whole.lateAnswers().get("200 allow"));
    }

    @Test
    void nothingCountsAfterTheRunStopped() {
        recorder.startCounting();
        recorder.startSteadyState();
        recorder.stop();
        recorder.answered(ALLOW, MS, true);
        WindowSummary steady = recorder.steadyState(new SteadyStateWindow(0, 1, "test", false), null, null);
        assertEquals(0, steady.allowsInTime());
        assertEquals(List.of(), List.copyOf(steady.lateAnswers().keySet()));
    }
}
