package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/** The waiting-time rule on a virtual clock (milliseconds turned into nanoseconds). */
class ControlledDelayTest {

    private static final long MS = TimeUnit.MILLISECONDS.toNanos(1);
    private final ControlledDelay delay = new ControlledDelay(1000 * MS, 100 * MS, () -> 160 * MS, 0);

    @Test
    void aQueueThatDrainedWithinTheIntervalAllowsTheLongWait() {
        delay.queueEmpty(50 * MS);

        assertFalse(delay.standing(140 * MS));
        assertEquals(1000 * MS, delay.allowedWaitNanos(140 * MS));
        assertTrue(delay.admits(900 * MS, 140 * MS));
        assertFalse(delay.admits(1001 * MS, 140 * MS));
    }

    @Test
    void aQueueThatStoodNonEmptyForAWholeIntervalAllowsOnlyTheTargetWait() {
        delay.queueEmpty(50 * MS);

        assertTrue(delay.standing(151 * MS));
        assertEquals(160 * MS, delay.allowedWaitNanos(151 * MS));
        assertTrue(delay.admits(160 * MS, 151 * MS));
        assertFalse(delay.admits(161 * MS, 151 * MS));
    }

    @Test
    void drainingOnceRestoresTheLongWait() {
        assertEquals(160 * MS, delay.allowedWaitNanos(500 * MS));

        delay.queueEmpty(500 * MS);

        assertEquals(1000 * MS, delay.allowedWaitNanos(520 * MS));
    }

    @Test
    void theTargetWaitNeverExceedsTheMaxWait() {
        ControlledDelay generous = new ControlledDelay(200 * MS, 100 * MS, () -> 5000 * MS, 0);

        assertEquals(200 * MS, generous.allowedWaitNanos(1000 * MS));
    }
}
