package io.deviceidentity.overload;

import java.util.OptionalDouble;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;
import java.util.function.Supplier;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import io.deviceidentity.credentials.CheckCost;
import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.Startup;

/**
 * The bulkhead in front of bcrypt: a fixed number of threads (the CPUs the pod may use) and a queue whose length is
 * governed by waiting time ({@link ControlledDelay}), not by the deadline.
 *
 * <p>Work is counted in {@link CheckCost} units (one cost-10 bcrypt verification = 1; a cost-14 row is 16), and
 * the estimate is the measured time per unit (a moving average of hash time ÷ the task's units), so that a check is
 * charged at its cost: an expensive row takes its real share of the queue, and a cheap one is not refused because
 * expensive ones were slow. Every request is judged three times, and refused work costs nothing but the refusal:
 * <ol>
 *   <li>at admission, on the caller's thread: the units ahead of it (waiting and running) ÷ threads × time per unit
 *       is its expected wait; if that exceeds the allowance of the moment, or its own units after it would miss the
 *       deadline, it is refused at once ({@code overload}, stage {@code admission});</li>
 *   <li>when a thread takes it: if it waited longer than the allowance it was admitted under ({@code overload},
 *       stage {@code dequeue}), or its deadline has passed ({@code deadline}), it is skipped without hashing;</li>
 *   <li>the caller's future completes with {@code deadline} when the deadline passes, so no answer outlives it.</li>
 * </ol>
 * Why not SmallRye's {@code @Bulkhead}: its queue exists only for asynchronous methods, bounds length rather than
 * waiting time, and keeps a queued task when its {@code @Timeout} fires; a running bcrypt cannot be interrupted.
 *
 * <p><b>No state of this class can refuse forever.</b> The estimate learns only from hashes that run, so a rule
 * that judged every request by it could refuse everything once slow hashes had pushed it up, and then never get
 * the sample that would bring it down (a replica refused every cold login for good after an attacker's cost-14
 * rows had run slowly). Therefore a request that finds a thread free starts at once and is judged by its own units
 * at no more than the configured {@code expected-duration} per unit: an idle lane refuses only work that could not
 * finish in time even at nominal speed. Whenever a request arrives, either a hash is running or waiting (a sample
 * is on its way) or a thread is free (the request is admitted, runs, and is the sample); so the estimate is always
 * corrected by the next arrival. The waiting-time rule comes back the same way: its overload regime ends when a
 * request finds a thread free. {@link #refusesWhileIdle()} reports the one state that would contradict this, for
 * readiness ({@link io.deviceidentity.readiness.BcryptAdmission}).
 *
 * <p>With a whole CPU or more the threads run under {@code SCHED_IDLE} ({@link IdleScheduling}), so that refusals
 * and answers are written by the event loop without waiting for a hash to yield the CPU; below one CPU at normal
 * priority, with the JIT's compiler threads at nice 19 instead ({@link SchedulingPlan} says why).
 */
@Startup
@ApplicationScoped
public class BcryptExecutor {

    private static final Logger LOG = Logger.getLogger(BcryptExecutor.class);
    /** Weight of the newest measurement in the moving average of time per unit. */
    private static final double SMOOTHING = 0.2;
    /** Units are kept as whole multiples of the cheapest check's charge, so that sums of them stay exact. */
    private static final double TICKS_PER_UNIT = 1 / CheckCost.FLOOR;
    /** Default target wait under a standing queue, in hash times. */
    private static final int TARGET_WAIT_HASHES = 2;

    private final int concurrency;
    private final int queueCapacity;
    private final LongSupplier clock;
    private final ThreadPoolExecutor executor;
    private final DeadlineTimer deadlineTimer;
    private final ControlledDelay delay;
    /** The configured time of one unit: the bound an idle lane judges a request by. */
    private final long nominalNanosPerUnit;
    /** The measured time of one unit (a moving average), what queued work is expected to take. */
    private final AtomicLong nanosPerUnit;
    private final long deadlineNanos;
    /** Units of the tasks waiting and running, in ticks. */
    private final AtomicLong ticksAhead = new AtomicLong();
    /** Submitted and not yet taken by a thread; running. Kept here because the executor's own counts take a lock. */
    private final AtomicInteger waiting = new AtomicInteger();
    private final AtomicInteger running = new AtomicInteger();
    private final AtomicInteger idleThreads = new AtomicInteger();
    private final Timer hashTimer;
    private final Timer queueWait;
    private final Counter refusedAtAdmission;
    private final Counter refusedAtDequeue;
    private final Counter skippedDeadline;
    private final Counter wasted;

    @Inject
    public BcryptExecutor(OverloadConfig config, MeterRegistry registry, DeadlineTimer deadlineTimer) {
        this(config, registry, deadlineTimer, System::nanoTime);
    }

    /** {@code clock} drives the waiting-time rule (a virtual clock in tests); deadlines keep the real one. */
    BcryptExecutor(OverloadConfig config, MeterRegistry registry, DeadlineTimer deadlineTimer, LongSupplier clock) {
        this.deadlineTimer = deadlineTimer;
        this.clock = clock;
        OverloadConfig.Bcrypt bcrypt = config.bcrypt();
        this.concurrency = bcrypt.concurrency().orElse(Runtime.getRuntime().availableProcessors());
        if (concurrency < 1) {
            throw new IllegalArgumentException("identity.overload.bcrypt.concurrency must be at least 1");
        }
        long expected = Math.max(1, bcrypt.expectedDuration().toNanos());
        this.nominalNanosPerUnit = expected;
        this.nanosPerUnit = new AtomicLong(expected);
        this.deadlineNanos = config.deadline().toNanos();
        requireFits(CheckCost.UNIT, "one cost-10 bcrypt check");
        this.queueCapacity = bcrypt.queue().orElse(derivedQueue(bcrypt.maxWait().toNanos(), expected, concurrency));
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("identity.overload.bcrypt.queue must be at least 1");
        }
        LongSupplier targetWait = bcrypt.targetWait().isPresent()
                ? () -> bcrypt.targetWait().get().toNanos()
                : () -> TARGET_WAIT_HASHES * nanosPerUnit.get();
        this.delay = new ControlledDelay(bcrypt.maxWait().toNanos(), bcrypt.interval().toNanos(), targetWait,
                clock.getAsLong());
        OptionalDouble cpuLimit = CpuQuota.ofThisProcess();
        SchedulingPlan scheduling = SchedulingPlan.of(bcrypt.idlePriority(), cpuLimit);
        this.executor = new ThreadPoolExecutor(concurrency, concurrency, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(queueCapacity), threads(scheduling.idleBcrypt()));
        executor.prestartAllCoreThreads();
        int niced = scheduling.compilerThreadsNiced() ? CompilerThreads.deprioritise() : 0;

        this.hashTimer = Timer.builder(MetricNames.BCRYPT_DURATION)
                .description("Time spent computing one bcrypt hash or verification")
                .publishPercentiles(0.5, 0.9, 0.99)
                .register(registry);
        this.queueWait = Timer.builder(MetricNames.BCRYPT_QUEUE_WAIT)
                .description("Time bcrypt work waited for a thread")
                .publishPercentiles(0.5, 0.99)
                .register(registry);
        this.refusedAtAdmission = refused(registry, "admission");
        this.refusedAtDequeue = refused(registry, "dequeue");
        this.skippedDeadline = Counter.builder(MetricNames.BCRYPT_SKIPPED)
                .description("bcrypt work skipped at start because its request's deadline had passed")
                .tag(MetricNames.TAG_REASON, UnavailableReason.DEADLINE.label())
                .register(registry);
        this.wasted = Counter.builder(MetricNames.BCRYPT_WASTED)
                .description("bcrypt work finished after its request's deadline: nobody read the answer")
                .register(registry);
        Gauge.builder(MetricNames.BCRYPT_QUEUE_DEPTH, waiting, AtomicInteger::get)
                .description("bcrypt tasks waiting for a thread").register(registry);
        Gauge.builder(MetricNames.BCRYPT_ACTIVE, running, AtomicInteger::get)
                .description("bcrypt tasks running").register(registry);
        Gauge.builder(MetricNames.BCRYPT_CONCURRENCY, this, BcryptExecutor::concurrency)
                .description("bcrypt threads").register(registry);
        Gauge.builder(MetricNames.BCRYPT_ALLOWED_WAIT, this, e -> e.delay.allowedWaitNanos(e.clock.getAsLong()) / 1e9)
                .description("How long a request may wait for a bcrypt thread right now")
                .baseUnit("seconds").register(registry);
        Gauge.builder(MetricNames.BCRYPT_STANDING_QUEUE, this, e -> e.delay.standing(e.clock.getAsLong()) ? 1 : 0)
                .description("1 while the bcrypt queue has not drained for a whole interval (overload)")
                .register(registry);
        Gauge.builder(MetricNames.BCRYPT_REFUSING_IDLE, this, e -> e.refusesWhileIdle() ? 1 : 0)
                .description("1 while no bcrypt work runs or waits and a cost-10 check arriving now would still be"
                        + " refused: the replica cannot verify any password (not ready)")
                .register(registry);
        Gauge.builder(MetricNames.BCRYPT_UNIT_SECONDS, nanosPerUnit, n -> n.get() / 1e9)
                .description("Measured time of one cost-10 bcrypt verification (moving average), the admission"
                        + " estimate of queued work")
                .baseUnit("seconds").register(registry);
        Gauge.builder(MetricNames.BCRYPT_IDLE_THREADS, idleThreads, AtomicInteger::get)
                .description("bcrypt threads running under SCHED_IDLE").register(registry);
        LOG.infof("bcrypt executor: %d threads (SCHED_IDLE: %s; CPU limit %s, %d JIT compiler threads at nice %d),"
                + " waits up to %s (%s once the queue stands for %s), at most %d waiting, deadline %s", concurrency,
                scheduling.idleBcrypt(), cpuLimit.isPresent() ? cpuLimit.getAsDouble() : "none", niced,
                CompilerThreads.NICE, bcrypt.maxWait(),
                bcrypt.targetWait().map(Object::toString).orElse(TARGET_WAIT_HASHES + " hash times"),
                bcrypt.interval(), queueCapacity, config.deadline());
    }

    /**
     * Refuses to start a service whose deadline cannot hold work of {@code units} even on an idle thread at the
     * configured {@code expected-duration}: every such request would be refused, the warm-up's included, so the
     * replica would never become ready; a message naming the setting and its minimum is what the operator needs.
     */
    public void requireFits(double units, String work) {
        long needed = nanos(ticks(units), nominalNanosPerUnit);
        if (deadlineNanos <= needed) {
            throw new IllegalArgumentException(String.format("identity.overload.deadline (IDENTITY_OVERLOAD_DEADLINE)"
                    + " is %s, but %s is expected to take %s (identity.overload.bcrypt.expected-duration %s per"
                    + " cost-10 check): no such request could ever finish in time, and the service would never"
                    + " become ready. Set the deadline above %s (the default is 4s).",
                    millis(deadlineNanos), work, millis(needed), millis(nominalNanosPerUnit), millis(needed)));
        }
    }

    /** A duration as the configuration writes it ({@code 80ms}), to the microsecond when it is not whole. */
    private static String millis(long nanos) {
        return nanos % 1_000_000 == 0 ? nanos / 1_000_000 + "ms" : String.format("%.3fms", nanos / 1e6);
    }

    /** ceil(max-wait ÷ hash time) × threads: as many as can start within the longest allowance. */
    static int derivedQueue(long maxWaitNanos, long expectedNanos, int concurrency) {
        long perThread = (maxWaitNanos + expectedNanos - 1) / Math.max(1, expectedNanos);
        return (int) Math.max(1, Math.min(100_000, perThread * concurrency));
    }

    /**
     * Runs CPU-bound work of {@code units} ({@link CheckCost}: what the work costs in cost-10 bcrypt verifications)
     * for a request. The future fails with a {@link ServiceUnavailableException} when the work is refused, skipped or
     * not done by the deadline. Never blocks the caller.
     */
    public <T> CompletableFuture<T> submit(Deadline deadline, double units, Supplier<T> work) {
        long now = clock.getAsLong();
        long ticks = ticks(units);
        Admission admission = admission(deadline, ticks, now);
        if (admission.refusal() != null) {
            refusedAtAdmission.increment();
            return CompletableFuture.failedFuture(admission.refusal());
        }
        long allowedWait = delay.allowedWaitNanos(now);
        CompletableFuture<T> result = new CompletableFuture<>();
        waiting.incrementAndGet();
        ticksAhead.addAndGet(ticks);
        try {
            executor.execute(() -> run(now, allowedWait, admission.atOnce(), ticks, deadline, work, result));
        } catch (RejectedExecutionException full) {
            waiting.decrementAndGet();
            ticksAhead.addAndGet(-ticks);
            refusedAtAdmission.increment();
            return CompletableFuture.failedFuture(ServiceUnavailableException.overload("the bcrypt queue is full"));
        }
        return deadlineTimer.bound(deadline, result);
    }

    /**
     * Refuses now, exactly as {@link #submit} would, a request of {@code units} whose work could not be admitted at
     * this moment: for callers that know a request will need bcrypt and can skip their own work before it
     * (auth-service's database read for a device it has just seen active; before the read, the row's cost is not
     * known and the caller passes the least it can be).
     */
    public void refuseIfSaturated(Deadline deadline, double units) {
        ServiceUnavailableException refusal = admission(deadline, ticks(units), clock.getAsLong()).refusal();
        if (refusal != null) {
            refusedAtAdmission.increment();
            throw refusal;
        }
    }

    /**
     * Whether the lane refuses while idle: nothing runs or waits, and a cost-10 check arriving now with the whole
     * request deadline ahead of it would be refused. The admission rule makes this impossible unless the configured
     * expected duration exceeds the deadline, which {@link #requireFits} refuses at start; it is still reported
     * (readiness, a gauge) rather than assumed, because a replica in this state cannot verify a single password and
     * must not receive traffic.
     */
    public boolean refusesWhileIdle() {
        if (waiting.get() > 0 || running.get() > 0) {
            return false;
        }
        long now = System.nanoTime();
        return admission(new Deadline(now, now + deadlineNanos), ticks(CheckCost.UNIT), clock.getAsLong())
                .refusal() != null;
    }

    /** The outcome of the admission rule: a refusal, or admitted (at once, a thread being free, or to the queue). */
    private record Admission(ServiceUnavailableException refusal, boolean atOnce) {
    }

    /** The admission rule for a request of {@code ticks}; refusals are counted by the caller. */
    private Admission admission(Deadline deadline, long ticks, long now) {
        int ahead = waiting.get();
        int busy = running.get();
        if (ahead >= queueCapacity) {
            return refused("the bcrypt queue is full");
        }
        if (ahead + busy < concurrency) {
            // A thread is free: the only sign of capacity to spare. (A queue that empties while every thread is busy,
            // or because stale work was refused, is still overloaded.)
            delay.queueEmpty(now);
            // It starts at once, judged at no more than the nominal time per unit: the estimate may be made of hashes
            // that ran slowly (an attacker's expensive rows, a throttled CPU), and refusing on its word here would
            // refuse the very hash whose measurement corrects it (the class comment: why nothing latches).
            if (!deadline.allows(nanos(ticks, idleNanosPerUnit()))) {
                return refused("this check would not finish before its deadline even on an idle bcrypt thread");
            }
            return new Admission(null, true);
        }
        long perUnit = nanosPerUnit.get();
        long expectedWait = nanos(ticksAhead.get(), perUnit) / concurrency;
        if (!delay.admits(expectedWait, now)) {
            return refused("bcrypt is saturated: this request could not start within its allowed wait");
        }
        if (!deadline.allows(expectedWait + nanos(ticks, perUnit))) {
            return refused("bcrypt work ahead of this request would not finish before its deadline");
        }
        return new Admission(null, false);
    }

    private static Admission refused(String why) {
        return new Admission(ServiceUnavailableException.overload(why), false);
    }

    /** What a unit is taken to cost on a free thread: the estimate, but never more than the configured time. */
    private long idleNanosPerUnit() {
        return Math.min(nanosPerUnit.get(), nominalNanosPerUnit);
    }

    private static long ticks(double units) {
        if (!(units > 0) || Double.isInfinite(units)) {
            throw new IllegalArgumentException("bcrypt work must cost a positive, finite number of units: " + units);
        }
        return Math.max(1, (long) Math.ceil(units * TICKS_PER_UNIT));
    }

    private static long nanos(long ticks, long nanosPerUnit) {
        return (long) (ticks / TICKS_PER_UNIT * nanosPerUnit);
    }

    private <T> void run(long submittedAt, long allowedWait, boolean atOnce, long ticks, Deadline deadline,
            Supplier<T> work, CompletableFuture<T> result) {
        long now = clock.getAsLong();
        long waited = now - submittedAt;
        queueWait.record(waited, TimeUnit.NANOSECONDS);
        // Counted as running before it stops counting as waiting, so that no admission in between sees a free thread.
        running.incrementAndGet();
        waiting.decrementAndGet();
        if (deadline.hasPassed()) {
            // Nobody will read this answer (the caller got its 503 when the deadline passed): skip the hash.
            finished(ticks);
            skippedDeadline.increment();
            result.completeExceptionally(ServiceUnavailableException.deadline());
            return;
        }
        // The allowance it was admitted under is the promise; the estimate behind it assumed the running hash had just
        // begun, so only a slowdown (hashes taking longer than measured) makes a request miss it. Work admitted to a
        // free thread is judged as it was admitted, at no more than the nominal time per unit.
        long perUnit = atOnce ? idleNanosPerUnit() : nanosPerUnit.get();
        if (waited > allowedWait || !deadline.allows(nanos(ticks, perUnit))) {
            finished(ticks);
            refusedAtDequeue.increment();
            result.completeExceptionally(ServiceUnavailableException.overload(
                    "this request waited for bcrypt longer than allowed"));
            return;
        }
        long start = clock.getAsLong();
        T value = null;
        Throwable failure = null;
        try {
            value = work.get();
        } catch (RuntimeException | Error thrown) {
            failure = thrown;
        } finally {
            // Measured and released before the answer is completed: completing runs the caller's continuations
            // (building and writing the answer) on this thread, which is neither hash time nor a busy thread.
            finished(ticks);
            long took = clock.getAsLong() - start;
            hashTimer.record(took, TimeUnit.NANOSECONDS);
            long sample = (long) (took * TICKS_PER_UNIT / ticks);
            nanosPerUnit.updateAndGet(old -> Math.max(1, (long) (old + SMOOTHING * (sample - old))));
            if (deadline.hasPassed()) {
                wasted.increment();
            }
        }
        if (failure == null) {
            result.complete(value);
        } else {
            result.completeExceptionally(failure);
        }
    }

    private void finished(long ticks) {
        running.decrementAndGet();
        ticksAhead.addAndGet(-ticks);
    }

    public int concurrency() {
        return concurrency;
    }

    public int queueCapacity() {
        return queueCapacity;
    }

    /**
     * Whether the queue stands (overload, by the waiting-time rule) and holds work: refusing one more request now
     * cannot leave a thread idle.
     */
    public boolean overloaded() {
        return waiting.get() > 0 && delay.standing(clock.getAsLong());
    }

    /**
     * Whether a thread is free and nothing waits: work submitted now takes no capacity from any request (a legacy
     * credential's upgrade to bcrypt is only started then).
     */
    public boolean idle() {
        return waiting.get() == 0 && running.get() < concurrency;
    }

    /** The current allowance (for tests and diagnostics). */
    long allowedWaitNanos() {
        return delay.allowedWaitNanos(clock.getAsLong());
    }

    /** The measured time of one unit (for tests and diagnostics). */
    long nanosPerUnit() {
        return nanosPerUnit.get();
    }

    @PreDestroy
    void shutdown() {
        executor.shutdownNow();
    }

    private static Counter refused(MeterRegistry registry, String stage) {
        return Counter.builder(MetricNames.BCRYPT_REFUSED)
                .description("bcrypt work refused with 503 overload by the waiting-time rule")
                .tag(MetricNames.TAG_STAGE, stage)
                .register(registry);
    }

    private ThreadFactory threads(boolean idlePriority) {
        return ServiceThreads.named("bcrypt", () -> {
            if (idlePriority && IdleScheduling.applyToCurrentThread()) {
                idleThreads.incrementAndGet();
            }
        });
    }
}
