package io.deviceidentity.loadtest.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.deviceidentity.loadtest.devices.RateSchedule;
import io.deviceidentity.loadtest.devices.RetryPolicy;

class SteadyStateWindowTest {

    private static final Duration TEN = Duration.ofSeconds(10);

    private static SteadyStateWindow open(int durationS, String retry, RateSchedule schedule) {
        return SteadyStateWindow.choose(Duration.ofSeconds(durationS), Duration.ZERO, TEN, RetryPolicy.parse(retry),
                schedule, false, null);
    }

    @Test
    void fixedRetriesStartAfterTheTimeoutPlusOneRetryPeriod() {
        SteadyStateWindow w = open(90, "fixed:12s", RateSchedule.constant(100));
        assertEquals(22, w.startSecond());
        assertEquals(90, w.endSecond());
        assertEquals(68, w.seconds());
        assertFalse(w.clamped());
    }

    @Test
    void backoffUsesHalfItsCapAsTheRetryPeriod() {
        assertEquals(40, open(90, "backoff:1s..60s", RateSchedule.constant(100)).startSecond());
    }

    @Test
    void aStepMovesTheWindowBehindTheStep() {
        assertEquals(42, open(90, "fixed:12s", new RateSchedule(10, Duration.ofSeconds(20), 80)).startSecond());
    }

    @Test
    void aRunTooShortForItsRuleKeepsAQuarterOfTheRunAndSaysSo() {
        SteadyStateWindow w = open(24, "fixed:12s", RateSchedule.constant(100));
        assertEquals(18, w.startSecond());
        assertTrue(w.clamped());
    }

    @Test
    void aClosedLoopCountsEverythingAfterItsWarmUp() {
        SteadyStateWindow w = SteadyStateWindow.choose(Duration.ofSeconds(20), Duration.ofSeconds(5), TEN,
                RetryPolicy.parse("fixed:12s"), RateSchedule.constant(1), true, null);
        assertEquals(5, w.startSecond());
        assertEquals(15, w.seconds());
    }

    @Test
    void anExplicitStartWins() {
        assertEquals(30, SteadyStateWindow.choose(Duration.ofSeconds(90), Duration.ZERO, TEN,
                RetryPolicy.parse("fixed:12s"), RateSchedule.constant(1), false, Duration.ofSeconds(30)).startSecond());
    }

    @Test
    void aRunThatEndsEarlyKeepsItsWindowUpToItsLastSecond() {
        SteadyStateWindow pass = SteadyStateWindow.choose(Duration.ofSeconds(180), Duration.ZERO, TEN,
                RetryPolicy.parse("none"), null, true, null);
        SteadyStateWindow ended = pass.endingAt(40);
        assertEquals(0, ended.startSecond());
        assertEquals(40, ended.endSecond());
        assertFalse(ended.clamped());
        assertTrue(ended.rule().contains("ended early at 40 s"), ended.rule());
        assertEquals(pass, pass.endingAt(180), "a run that lasted its duration keeps its window");
        SteadyStateWindow late = open(90, "fixed:12s", RateSchedule.constant(100)).endingAt(10);
        assertEquals(9, late.startSecond(), "a start after the early end moves to the last second");
        assertTrue(late.clamped());
    }
}
