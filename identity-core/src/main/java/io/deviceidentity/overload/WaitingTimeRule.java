package io.deviceidentity.overload;

/**
 * The policy of a lane: whether a step may join it, and whether one a thread has just taken may still run, judged
 * by <strong>waiting time</strong> (the allowance of the moment, {@link ControlledDelay}) and the wait foreseen from
 * the measured step time ({@link StepTime}); never by queue length, which bounds only memory.
 *
 * <p>At admission, in this order: a step that finds a thread free is admitted to start at once (a lane that judges
 * by deadlines refuses it only when its own units at no more than the configured time per unit would miss its
 * deadline: the estimate may be made of slow steps, and refusing on its word here would refuse the very step whose
 * measurement corrects it, so no state can refuse forever); otherwise a lane without a queue is {@code FULL}; a lane
 * that watches for stalls refuses when no step started or finished within the allowance ({@code STALLED}: estimates
 * from before a stall would be wrong); a step whose foreseen wait exceeds the allowance is refused
 * ({@code EXPECTED_WAIT}), as is one whose wait and own work would miss its deadline ({@code PAST_DEADLINE}); past
 * the hard cap, {@code FULL}. When a thread takes it: a step that waited longer than the allowance it was admitted
 * under is refused without running ({@code WAITED}), and one whose deadline has passed is skipped ({@code DEADLINE}).
 */
final class WaitingTimeRule {

    /** How the wait of a step that finds every thread busy is foreseen. */
    enum Estimate {
        /**
         * Every unit in the lane, running ones counted whole, ÷ threads: a running bcrypt hash cannot be interrupted
         * and may have just begun, and work is charged at its cost ({@code CheckCost}).
         */
        ALL_IN_LANE,
        /**
         * The steps waiting ahead and its own, one unit each, ÷ threads: with every thread busy one frees every step
         * time ÷ threads on average, so behind ten threads whose steps take 40 ms the first waiter waits 4 ms, not 40.
         */
        MEAN_RELEASE
    }

    /**
     * @param estimate          how a waiter's wait is foreseen
     * @param judgesDeadlines   admission and start also refuse work that could not finish before its deadline, and a
     *                          step that found a thread free is held to its allowance too (bcrypt: its work is
     *                          long and its deadline the caller's); otherwise the deadline is checked only at start,
     *                          after the wait, and a step that found a thread free is never refused for the time the
     *                          scheduler took to start it
     * @param detectsStalls     refuse at once when every thread is busy and none started or finished a step within
     *                          the allowance
     * @param nominalNanosPerUnit the configured time of one unit, the most a step on a free thread is charged
     */
    record Settings(int concurrency, int queueCapacity, Estimate estimate, boolean judgesDeadlines,
            boolean detectsStalls, long nominalNanosPerUnit) {
    }

    /** The outcome of admission: a refusal, or admitted (to start at once or to wait) with its allowance. */
    record Admission(Refusal refusal, boolean atOnce, long allowedWaitNanos) {

        static Admission refused(Refusal refusal) {
            return new Admission(refusal, false, 0);
        }
    }

    private final Settings settings;
    private final ControlledDelay delay;
    private final StepTime stepTime;
    private final Occupancy occupancy;

    WaitingTimeRule(Settings settings, ControlledDelay delay, StepTime stepTime, Occupancy occupancy) {
        this.settings = settings;
        this.delay = delay;
        this.stepTime = stepTime;
        this.occupancy = occupancy;
    }

    /** Admission of a step of {@code ticks} to a lane holding {@code inLane} steps, at {@code now}. */
    Admission admit(int inLane, Deadline deadline, long ticks, long now) {
        int concurrency = settings.concurrency();
        if (inLane < concurrency) {
            // A thread is free: the only sign of capacity to spare. (A queue that empties while every thread is busy,
            // or because stale work was refused, is still overloaded.)
            delay.queueEmpty(now);
            if (!settings.judgesDeadlines()) {
                return new Admission(null, true, Long.MAX_VALUE);
            }
            if (!deadline.allows(StepTime.nanos(ticks, idleNanosPerUnit()))) {
                return Admission.refused(Refusal.TOO_LONG_FOR_DEADLINE);
            }
            return new Admission(null, true, delay.allowedWaitNanos(now));
        }
        if (settings.queueCapacity() == 0) {
            return Admission.refused(Refusal.FULL);
        }
        long allowed = delay.allowedWaitNanos(now);
        if (settings.detectsStalls() && now - occupancy.lastProgress() > allowed) {
            return Admission.refused(Refusal.STALLED);
        }
        long perUnit = stepTime.nanosPerUnit();
        long expectedWait = settings.estimate() == Estimate.ALL_IN_LANE
                ? StepTime.nanos(occupancy.ticksInLane(), perUnit) / concurrency
                : (inLane - concurrency + 1L) * perUnit / concurrency;
        if (expectedWait > allowed) {
            return Admission.refused(Refusal.EXPECTED_WAIT);
        }
        if (settings.judgesDeadlines() && !deadline.allows(expectedWait + StepTime.nanos(ticks, perUnit))) {
            return Admission.refused(Refusal.PAST_DEADLINE);
        }
        if (inLane - concurrency >= settings.queueCapacity()) {
            return Admission.refused(Refusal.FULL);
        }
        return new Admission(null, false, allowed);
    }

    /** Whether a step a thread has just taken, after {@code waitedNanos}, may run; the refusal otherwise. */
    Refusal atStart(Admission admission, long waitedNanos, Deadline deadline, long ticks) {
        if (!settings.judgesDeadlines()) {
            return waitedNanos > admission.allowedWaitNanos() ? Refusal.WAITED
                    : deadline.hasPassed() ? Refusal.DEADLINE : null;
        }
        if (deadline.hasPassed()) {
            return Refusal.DEADLINE;
        }
        // The allowance is the promise; the estimate behind it assumed the running work had just begun, so only a
        // slowdown makes a step miss it. Work admitted to a free thread is judged as it was admitted.
        long perUnit = admission.atOnce() ? idleNanosPerUnit() : stepTime.nanosPerUnit();
        return waitedNanos > admission.allowedWaitNanos() || !deadline.allows(StepTime.nanos(ticks, perUnit))
                ? Refusal.WAITED : null;
    }

    /** What a unit is taken to cost on a free thread: the estimate, but never more than the configured time. */
    private long idleNanosPerUnit() {
        return Math.min(stepTime.nanosPerUnit(), settings.nominalNanosPerUnit());
    }

    /** The time work of {@code ticks} is configured to take on a free thread. */
    long nominalNanos(long ticks) {
        return StepTime.nanos(ticks, settings.nominalNanosPerUnit());
    }

    long allowedWaitNanos(long now) {
        return delay.allowedWaitNanos(now);
    }

    boolean standing(long now) {
        return delay.standing(now);
    }
}
