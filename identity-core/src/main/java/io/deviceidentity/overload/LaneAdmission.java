package io.deviceidentity.overload;

import java.util.function.LongSupplier;

/**
 * Whether work may take a place in a {@link Lane}: a request's step by its share ({@link Partitions}) and then its
 * policy ({@link WaitingTimeRule#admit}), a bulk step only while it leaves a thread free for requests, and whether a
 * configuration lets the policy admit anything at all. The place is taken on the count of steps the verdict was made
 * on, and the verdict made again when another step took or freed a place in between: two admissions never both take
 * the last free thread on the strength of one count. A refused step holds no place.
 */
final class LaneAdmission {

    /** A request's admission (or its refusal), decided at {@code at} on the lane's clock: it waits from then. */
    record Entry(WaitingTimeRule.Admission admission, long at) {
    }

    private final LaneSettings settings;
    private final WaitingTimeRule rule;
    private final Occupancy occupancy;
    private final Partitions partitions;
    private final LongSupplier clock;

    LaneAdmission(LaneSettings settings, WaitingTimeRule rule, Occupancy occupancy, Partitions partitions,
            LongSupplier clock) {
        this.settings = settings;
        this.rule = rule;
        this.occupancy = occupancy;
        this.partitions = partitions;
        this.clock = clock;
    }

    /** Takes a place in the lane and in {@code share} for a request's step of {@code ticks}, or tells the refusal. */
    Entry enter(Deadline deadline, Share share, long ticks) {
        if (!partitions.enter(share)) {
            return new Entry(WaitingTimeRule.Admission.refused(Refusal.SHARE_FULL), 0);
        }
        long now = clock.getAsLong();
        WaitingTimeRule.Admission admission;
        int seen;
        do {
            seen = occupancy.inLane();
            admission = rule.admit(seen, deadline, ticks, now);
        } while (admission.refusal() == null && !occupancy.enter(seen, ticks));
        if (admission.refusal() != null) {
            partitions.leave(share);
        }
        return new Entry(admission, now);
    }

    /** Gives back the place in {@code share} of a step that has finished or was skipped, whichever way. */
    void leave(Share share) {
        partitions.leave(share);
    }

    /** The refusal known work of {@code ticks} would get at this moment, without taking a place; null if none. */
    Refusal refusalNow(Deadline deadline, long ticks) {
        return rule.admit(occupancy.inLane(), deadline, ticks, clock.getAsLong()).refusal();
    }

    /**
     * Takes a place for a bulk step of {@code ticks} only while it leaves a thread free for the requests this lane
     * exists for ({@link Partitions#bulkLimit()}); false otherwise. No policy: a bulk step never waits.
     */
    boolean enterBulk(long ticks) {
        for (int seen = occupancy.inLane(); seen >= partitions.bulkLimit() || !occupancy.enter(seen, ticks);
                seen = occupancy.inLane()) {
            if (seen >= partitions.bulkLimit()) {
                return false;
            }
        }
        return true;
    }

    /**
     * Refuses to start a service whose deadline cannot hold work of {@code units} even on a free thread at the
     * configured time per unit: every such request would be refused, the warm-up's included, so the replica would
     * never become ready; a message naming the setting and its minimum is what the operator needs.
     */
    void requireFits(double units, String work) {
        long needed = rule.nominalNanos(StepTime.ticks(units));
        long deadline = settings.requestDeadlineNanos();
        if (deadline <= needed) {
            throw new IllegalArgumentException(String.format("identity.overload.deadline (IDENTITY_OVERLOAD_DEADLINE)"
                    + " is %s, but %s is expected to take %s (identity.overload.%s.expected-duration %s per"
                    + " cost-10 check): no such request could ever finish in time, and the service would never"
                    + " become ready. Set the deadline above %s (the default is 4s).", millis(deadline), work,
                    millis(needed), settings.name(), millis(rule.nominalNanos(StepTime.ticks(1))), millis(needed)));
        }
    }

    /** A duration as the configuration writes it ({@code 80ms}), to the microsecond when it is not whole. */
    private static String millis(long nanos) {
        return nanos % 1_000_000 == 0 ? nanos / 1_000_000 + "ms" : String.format("%.3fms", nanos / 1e6);
    }

    /**
     * Whether the lane refuses while idle: nothing runs or waits, and one unit of work arriving now with the whole
     * request deadline ahead of it would be refused. The policy makes this impossible unless the configured time per
     * unit exceeds the deadline, which {@link #requireFits} refuses at start; it is still reported (readiness, a
     * gauge) rather than assumed, because a bcrypt lane in this state cannot verify a single password.
     */
    boolean refusesWhileIdle() {
        if (occupancy.inLane() > 0) {
            return false;
        }
        long now = System.nanoTime();
        Deadline whole = new Deadline(now, now + settings.requestDeadlineNanos());
        return rule.admit(0, whole, StepTime.ticks(1), clock.getAsLong()).refusal() != null;
    }
}
