package io.deviceidentity.overload;

import java.util.Optional;
import java.util.OptionalDouble;
import java.util.concurrent.atomic.AtomicInteger;

/**
 * Who gets the CPU before bcrypt, applied: the {@link SchedulingPlan} for this pod's CPU limit ({@link CpuQuota}),
 * given to the bcrypt lane as what each of its threads runs first. With a whole CPU or more the threads move to
 * {@code SCHED_IDLE} ({@link IdleScheduling}), so that refusals and answers are written by the event loop without
 * waiting for a hash to yield the CPU; below one CPU they keep normal priority and the JIT's compiler threads move
 * to nice 19 instead ({@link CompilerThreads}). The lane itself knows nothing of the OS.
 */
final class BcryptScheduling {

    private final SchedulingPlan plan;
    private final OptionalDouble cpuLimit;
    private final AtomicInteger idleThreads = new AtomicInteger();
    private int compilerThreadsNiced;

    private BcryptScheduling(SchedulingPlan plan, OptionalDouble cpuLimit) {
        this.plan = plan;
        this.cpuLimit = cpuLimit;
    }

    /** The plan for this process's CPU limit; {@code idlePriority}: the setting (unset: by the limit). */
    static BcryptScheduling forThisProcess(Optional<Boolean> idlePriority) {
        OptionalDouble cpuLimit = CpuQuota.ofThisProcess();
        return new BcryptScheduling(SchedulingPlan.of(idlePriority, cpuLimit), cpuLimit);
    }

    /** What each bcrypt thread runs when it starts. */
    Runnable onThreadStart() {
        return () -> {
            if (plan.idleBcrypt() && IdleScheduling.applyToCurrentThread()) {
                idleThreads.incrementAndGet();
            }
        };
    }

    /** Renices the JIT's compiler threads when the plan says so, once, as the lane starts. */
    void applyToProcess() {
        compilerThreadsNiced = plan.compilerThreadsNiced() ? CompilerThreads.deprioritise() : 0;
    }

    /** bcrypt threads running under {@code SCHED_IDLE}. */
    int idleThreads() {
        return idleThreads.get();
    }

    /** For the start-up log line. */
    String describe() {
        return String.format("SCHED_IDLE: %s; CPU limit %s, %d JIT compiler threads at nice %d", plan.idleBcrypt(),
                cpuLimit.isPresent() ? cpuLimit.getAsDouble() : "none", compilerThreadsNiced, CompilerThreads.NICE);
    }
}
