package io.deviceidentity.readiness;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

class WarmUpRunTest {

    private final List<String> ran = new ArrayList<>();
    private final List<Long> pauses = new ArrayList<>();

    @Test
    void aFailingStepIsRetriedWithGrowingPausesAndNothingAfterItRunsUntilItSucceeds() {
        int[] failuresLeft = {6};
        List<Boolean> doneWhilePool = new ArrayList<>();
        WarmUpRun[] run = new WarmUpRun[1];
        run[0] = new WarmUpRun(List.of(
                WarmUpStep.of("pool", () -> {
                    ran.add("pool");
                    doneWhilePool.add(run[0].done());
                    if (failuresLeft[0]-- > 0) {
                        throw new SQLException("Connection refused");
                    }
                }),
                WarmUpStep.of("bcrypt", () -> ran.add("bcrypt"))), pauses::add, System::nanoTime);

        run[0].run();

        assertEquals(List.of("pool", "pool", "pool", "pool", "pool", "pool", "pool", "bcrypt"), ran);
        assertEquals(List.of(500L, 1000L, 2000L, 4000L, 5000L, 5000L), pauses);
        assertFalse(doneWhilePool.contains(true), "reported done while a step had not succeeded");
        assertTrue(run[0].done());
        assertNull(run[0].current());
        assertNull(run[0].lastFailure());
    }

    @Test
    void whileAStepFailsTheRunNamesItAndWhy() {
        WarmUpRun[] run = new WarmUpRun[1];
        List<String> seen = new ArrayList<>();
        run[0] = new WarmUpRun(List.of(WarmUpStep.of("pool", () -> {
            throw new SQLException("Connection refused");
        })), millis -> {
            seen.add(run[0].current() + " / " + run[0].lastFailure());
            throw new InterruptedException("stopping");
        }, System::nanoTime);

        run[0].run();

        assertFalse(run[0].done());
        assertEquals(List.of("pool / pool: java.sql.SQLException: Connection refused"), seen);
        assertTrue(Thread.interrupted(), "the interruption is kept for the caller");
    }

    @Test
    void anEmptyPlanIsDoneAtOnce() {
        WarmUpRun run = new WarmUpRun(List.of(), pauses::add, System::nanoTime);
        assertFalse(run.done());
        run.run();
        assertTrue(run.done());
        assertTrue(pauses.isEmpty());
    }
}
