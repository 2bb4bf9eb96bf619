package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Optional;
import java.util.OptionalDouble;

import org.junit.jupiter.api.Test;

/** Who gets the pod's CPU first, by its CPU limit, and the setting that overrides it. */
class SchedulingPlanTest {

    @Test
    void belowOneCpuBcryptRunsAtNormalPriorityAndTheJitYields() {
        assertEquals(new SchedulingPlan(false, true), SchedulingPlan.of(Optional.empty(), OptionalDouble.of(0.25)));
        assertEquals(new SchedulingPlan(false, true), SchedulingPlan.of(Optional.empty(), OptionalDouble.of(0.99)));
    }

    @Test
    void withAWholeCpuOrNoLimitBcryptYieldsToEverythingElse() {
        assertEquals(new SchedulingPlan(true, false), SchedulingPlan.of(Optional.empty(), OptionalDouble.of(1.0)));
        assertEquals(new SchedulingPlan(true, false), SchedulingPlan.of(Optional.empty(), OptionalDouble.of(2.0)));
        assertEquals(new SchedulingPlan(true, false), SchedulingPlan.of(Optional.empty(), OptionalDouble.empty()));
    }

    @Test
    void theSettingDecidesBcryptsPolicyButNotTheJits() {
        assertEquals(new SchedulingPlan(true, true), SchedulingPlan.of(Optional.of(true), OptionalDouble.of(0.25)));
        assertEquals(new SchedulingPlan(false, false), SchedulingPlan.of(Optional.of(false), OptionalDouble.empty()));
    }
}
