package io.deviceidentity.overload;

import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.function.LongSupplier;

/**
 * A lane: a fixed number of threads of its own for one kind of blocking work (bcrypt hashes, database steps), in
 * front of which a request waits only as long as its {@link WaitingTimeRule} allows, and is refused at once when
 * that can be foreseen. Refused work costs nothing but the refusal. The lane decides none of the rules: its
 * {@link LaneAdmission} admits (by its policy and its {@link Partitions}), its {@link LaneListener} meters, its
 * {@link Attribution} says whose fault a refusal is, and its {@link LaneThreads} run the work. {@link Lanes} builds
 * the two instances.
 *
 * <p>Why not the Vert.x worker pool or SmallRye's {@code @Bulkhead}: the one's queue is unbounded and invisible, the
 * other's bounds length rather than waiting time and keeps a queued task when its {@code @Timeout} fires; a running
 * bcrypt cannot be interrupted, and a request that waits seconds with its deadline running is refused too late.
 */
public final class Lane {

    /** A lane's work: blocking, on a lane thread. */
    @FunctionalInterface
    public interface Step<T> {
        T run() throws SQLException;
    }

    private final LaneSettings settings;
    private final WaitingTimeRule rule;
    private final Occupancy occupancy;
    private final StepTime stepTime;
    private final LaneAdmission admission;
    private final LaneListener listener;
    private final Attribution attribution;
    private final LongSupplier clock;
    private final LaneThreads threads;

    /** {@code clock} drives the waiting-time rule (a virtual clock in tests); deadlines keep the real one. */
    Lane(LaneSettings settings, WaitingTimeRule rule, Occupancy occupancy, StepTime stepTime, Partitions partitions,
            LaneListener listener, Attribution attribution, LongSupplier clock) {
        this.settings = settings;
        this.rule = rule;
        this.occupancy = occupancy;
        this.stepTime = stepTime;
        this.admission = new LaneAdmission(settings, rule, occupancy, partitions, clock);
        this.listener = listener;
        this.attribution = attribution;
        this.clock = clock;
        this.threads = new LaneThreads(settings, rule, occupancy, stepTime, listener, attribution, clock);
    }

    /** {@link #submit} of one unit of known work. */
    public <T> CompletableFuture<T> run(Deadline deadline, Step<T> step) {
        return submit(deadline, Share.KNOWN, 1, step);
    }

    /** {@link #submit} of one unit of work in {@code share}. */
    public <T> CompletableFuture<T> run(Deadline deadline, Share share, Step<T> step) {
        return submit(deadline, share, 1, step);
    }

    /** {@link #submit} of known work. */
    public <T> CompletableFuture<T> submit(Deadline deadline, double units, Step<T> step) {
        return submit(deadline, Share.KNOWN, units, step);
    }

    /**
     * Runs work of {@code units} (bcrypt: {@code CheckCost}, what it costs in cost-10 verifications; a database
     * step: 1) for a request on a lane thread. The future fails with a {@link ServiceUnavailableException} when the
     * work is refused, skipped or (a lane given a deadline timer) not done by the deadline. Never blocks the caller.
     */
    public <T> CompletableFuture<T> submit(Deadline deadline, Share share, double units, Step<T> step) {
        long ticks = StepTime.ticks(units);
        LaneAdmission.Entry entry = admission.enter(deadline, share, ticks);
        if (entry.admission().refusal() != null) {
            return refused(share, entry.admission().refusal());
        }
        CompletableFuture<T> result = threads.execute(deadline, share, entry.admission(), ticks, entry.at(), step);
        if (share != Share.KNOWN) {
            result.whenComplete((value, failure) -> admission.leave(share));
        }
        return settings.deadlineTimer() == null ? result : settings.deadlineTimer().bound(deadline, result);
    }

    /**
     * Refuses now, exactly as {@link #submit} would, known work of {@code units} that could not be admitted at this
     * moment: for callers that know a request will need the lane and can skip their own work before it
     * (auth-service's database read for a device it has just seen active; before the read, the row's cost is not
     * known and the caller passes the least it can be).
     */
    public void refuseIfSaturated(Deadline deadline, double units) {
        Refusal refusal = admission.refusalNow(deadline, StepTime.ticks(units));
        if (refusal != null) {
            listener.refused(Share.KNOWN, refusal);
            throw attribution.told(settings.refusal(refusal));
        }
    }

    /**
     * Runs a bulk step (one batch of an import: tens of milliseconds where a request's step takes one) only when it
     * leaves a thread free for the requests this lane exists for ({@link LaneAdmission#enterBulk}): never queued,
     * never counted as a refused request, and kept out of the step-time estimate that admits requests. A refusal
     * ({@code overload}) means "back off and try again"; it is nobody's answer.
     */
    public <T> CompletableFuture<T> runBulk(Step<T> step) {
        long ticks = StepTime.ticks(1);
        if (!admission.enterBulk(ticks)) {
            return CompletableFuture.failedFuture(ServiceUnavailableException.overload(
                    "the " + settings.name() + " threads are busy with requests"));
        }
        return threads.execute(null, Share.KNOWN, null, ticks, clock.getAsLong(), step);
    }

    /**
     * The answer to a request whose deadline passed before its decision: {@code deadline}, or what its
     * {@link Attribution} names instead (the database lane: {@code backend_unavailable} while the database holds or
     * fails its steps, the request most likely waiting on it).
     */
    public ServiceUnavailableException expired() {
        return attribution.expired();
    }

    private <T> CompletableFuture<T> refused(Share share, Refusal refusal) {
        listener.refused(share, refusal);
        return attribution.tell(settings.refusal(refusal));
    }

    /**
     * Refuses to start a service whose deadline cannot hold work of {@code units} even on a free thread
     * ({@link LaneAdmission#requireFits}).
     */
    public void requireFits(double units, String work) {
        admission.requireFits(units, work);
    }

    /** Whether one unit would be refused while nothing runs or waits ({@link LaneAdmission#refusesWhileIdle}). */
    public boolean refusesWhileIdle() {
        return admission.refusesWhileIdle();
    }

    /** Whether the queue stands (overload) and holds work: refusing one more request now cannot leave a thread idle. */
    public boolean overloaded() {
        return occupancy.waiting() > 0 && rule.standing(clock.getAsLong());
    }

    /** Whether a thread is free and nothing waits: work submitted now takes no capacity from any request. */
    public boolean idle() {
        return occupancy.waiting() == 0 && occupancy.running() < settings.concurrency();
    }

    public int concurrency() {
        return settings.concurrency();
    }

    public int queueCapacity() {
        return settings.queueCapacity();
    }

    /** Steps admitted and not yet running. */
    public int waiting() {
        return occupancy.waiting();
    }

    int running() {
        return occupancy.running();
    }

    /** The current allowance (for meters, tests and diagnostics). */
    long allowedWaitNanos() {
        return rule.allowedWaitNanos(clock.getAsLong());
    }

    boolean standing() {
        return rule.standing(clock.getAsLong());
    }

    /** The measured time of one unit (for meters, tests and diagnostics). */
    long nanosPerUnit() {
        return stepTime.nanosPerUnit();
    }

    public void shutdown() {
        threads.shutdown();
    }
}
