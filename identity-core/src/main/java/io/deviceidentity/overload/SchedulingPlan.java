package io.deviceidentity.overload;

import java.util.Optional;
import java.util.OptionalDouble;

/**
 * Who gets a pod's CPU first, decided from its CPU limit. Measured in storms at 8x capacity
 * (docs/overload.md, "The cost of a refusal"):
 * <ul>
 *   <li>with a whole CPU, bcrypt under {@code SCHED_IDLE} held 0.89-0.90 of capacity: the event loop and the JIT
 *       take what they need first, the JIT finishes, and bcrypt gets the rest; at normal priority 0.73, the JIT
 *       competing with bcrypt for the whole storm;</li>
 *   <li>below one CPU (0.25: 25 ms per 100 ms) the JIT, GC and database threads took the quota from a
 *       {@code SCHED_IDLE} bcrypt (0.33-0.35); bcrypt at normal priority with the JIT's compiler threads at nice 19
 *       held 0.63-0.74, and the same nice 19 with a whole CPU left the request path half-compiled (0.62-0.78), so it
 *       applies only below one CPU.</li>
 * </ul>
 *
 * @param idleBcrypt           bcrypt threads under {@code SCHED_IDLE}
 * @param compilerThreadsNiced the JIT's compiler threads at nice 19 ({@link CompilerThreads})
 */
public record SchedulingPlan(boolean idleBcrypt, boolean compilerThreadsNiced) {

    /** {@code idlePriority}: the setting (unset: by the limit); {@code cpuLimit}: {@link CpuQuota}, in CPUs. */
    public static SchedulingPlan of(Optional<Boolean> idlePriority, OptionalDouble cpuLimit) {
        boolean belowOneCpu = cpuLimit.isPresent() && cpuLimit.getAsDouble() < 1.0;
        return new SchedulingPlan(idlePriority.orElse(!belowOneCpu), belowOneCpu);
    }
}
