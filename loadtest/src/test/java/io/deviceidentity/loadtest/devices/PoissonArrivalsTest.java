package io.deviceidentity.loadtest.devices;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.SplittableRandom;

import org.junit.jupiter.api.Test;

/** Arrival counts on a virtual clock: the step changes the rate from its moment on. */
class PoissonArrivalsTest {

    @Test
    void theRateStepsAtTheStep() {
        RateSchedule schedule = new RateSchedule(10, Duration.ofSeconds(100), 100);
        PoissonArrivals arrivals = new PoissonArrivals(schedule, 0, new SplittableRandom(1));
        int before = arrivals.dueBy(Duration.ofSeconds(100).toNanos() - 1);
        int after = arrivals.dueBy(Duration.ofSeconds(200).toNanos());
        // Expected 1 000 then 10 000; Poisson spread is ~sqrt(n), allow 10 %.
        assertTrue(Math.abs(before - 1_000) < 100, "before the step: " + before);
        assertTrue(Math.abs(after - 10_000) < 1_000, "after the step: " + after);
    }

    @Test
    void nothingIsDueBeforeTheStartAndEachArrivalOnce() {
        PoissonArrivals arrivals = new PoissonArrivals(RateSchedule.constant(50), 0, new SplittableRandom(2));
        int first = arrivals.dueBy(Duration.ofSeconds(10).toNanos());
        assertEquals(0, arrivals.dueBy(Duration.ofSeconds(10).toNanos()), "arrivals are handed out once");
        assertTrue(first > 400 && first < 600, "about 500: " + first);
    }
}
