package io.deviceidentity.overload;

import java.sql.SQLException;
import java.time.Duration;
import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.Startup;

/**
 * Runs the blocking database step of a request (one pooled connection, one statement) on threads of its own, behind
 * a queue bounded by <strong>waiting time</strong> ({@code identity.overload.database.max-wait}, 25 ms): a request
 * either gets a thread within that time or is answered 503 {@code overload}, at once when its wait can be foreseen.
 * A step takes about a millisecond, so the short wait absorbs the bursts of a fast-path storm (many EMQX connections
 * behind a few pooled ones) that refusing would turn into retries; it is refused at once when the expected wait (the
 * steps waiting ahead of it, itself included, ÷ threads × the measured step time: with every thread busy, one frees
 * every step time ÷ threads on average) exceeds it, or when no step has started or finished for that long (a
 * stalled database: estimates from before the stall would be wrong), and refused without running when it waited longer
 * in the queue. A step that found a thread free is never refused for waiting: what delayed it was the CPU, not the lane.
 *
 * <p>Shares: work for client ids known to exist ({@link Share#KNOWN}) may use every place; everything else
 * ({@link Share#OTHER}: unknown ids, a source over its failure budget) may hold at most the threads that are not reserved
 * ({@code identity.overload.database.reserved-for-known}), running or waiting, and is refused at once beyond them. So a
 * flood of invented client ids can fill its own share, never the threads the known fleet's reads need.
 *
 * <p>Why not the Vert.x worker pool: its queue is unbounded and invisible, so under a storm requests would wait there
 * for seconds, with their deadline running, before being refused. One thread per pooled connection is enough: a
 * second thread per connection could only wait for the pool. Failures come back classified
 * ({@link BackendFailures}): a database error is {@code backend_unavailable}, never a 500.
 */
@Startup
@ApplicationScoped
public class DatabaseLane {

    private static final Logger LOG = Logger.getLogger(DatabaseLane.class);

    /** One database step: blocking, on a lane thread. */
    @FunctionalInterface
    public interface Step<T> {
        T run() throws SQLException;
    }

    /** Whose work a step is: see the class comment. */
    public enum Share {
        /** For a client id known to exist: may use every thread. */
        KNOWN,
        /** Anything else: may hold at most the unreserved threads. */
        OTHER
    }

    /**
     * Why a step was refused, a tag of {@code identity_database_refused_total} beside its share: whether the known
     * fleet's reads or a flood's were refused, and by which rule, is what an operator needs to tell an attack from a
     * slow database (docs/operations.md).
     */
    enum Refusal {
        /** {@link Share#OTHER} only: its unreserved threads are all taken. */
        SHARE_FULL("the database threads not reserved for known devices are busy"),
        /** Every thread busy and no queue, or the queue's hard cap reached. */
        FULL("every database thread is busy and no more may wait"),
        /** Every thread busy and none started or finished a step for longer than the allowed wait. */
        STALLED("every database thread is busy and none has started or finished a step lately"),
        /** The steps ahead would not finish within the allowed wait. */
        EXPECTED_WAIT("the database steps ahead would not finish within the allowed wait"),
        /** Admitted to wait, and waited longer than allowed before a thread took it. */
        WAITED("waited too long for a database thread");

        final String message;

        Refusal(String message) {
            this.message = message;
        }

        String tag() {
            return name().toLowerCase(Locale.ROOT);
        }
    }

    /** Starting estimate of one step, replaced by a moving average of measured ones. */
    private static final long INITIAL_STEP_NANOS = TimeUnit.MILLISECONDS.toNanos(2);

    private final int concurrency;
    private final long maxWaitNanos;
    private final int queueCap;
    private final LongSupplier clock;
    private final ThreadPoolExecutor executor;
    private final Semaphore permits;
    private final AtomicInteger active = new AtomicInteger();
    private final AtomicInteger inLane = new AtomicInteger();
    private final int otherLimit;
    private final AtomicInteger otherInLane = new AtomicInteger();
    private final AtomicLong stepNanos = new AtomicLong(INITIAL_STEP_NANOS);
    /** When a step last started or finished: a lane whose threads are all busy and that shows none for longer
     * than the allowed wait is stalled. */
    private final AtomicLong lastProgress;
    private final Map<Share, Map<Refusal, Counter>> refused = new EnumMap<>(Share.class);
    private final Timer queueWait;
    private final DatabaseFaults faults;

    @Inject
    public DatabaseLane(OverloadConfig config, MeterRegistry registry,
            @ConfigProperty(name = "quarkus.datasource.jdbc.max-size", defaultValue = "20") int poolMaxSize) {
        this(config.database().concurrency().orElse(poolMaxSize), config.database().maxWait(),
                config.database().queue(), config.database().reservedForKnown(), System::nanoTime, registry);
    }

    /** Without a queue: all threads busy means refused at once. */
    DatabaseLane(int concurrency, MeterRegistry registry) {
        this(concurrency, Duration.ZERO, 0, 0, System::nanoTime, registry);
    }

    DatabaseLane(int concurrency, Duration maxWait, int queueCap, LongSupplier clock, MeterRegistry registry) {
        this(concurrency, maxWait, queueCap, 0, clock, registry);
    }

    DatabaseLane(int concurrency, Duration maxWait, int queueCap, double reservedForKnown, LongSupplier clock,
            MeterRegistry registry) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("identity.overload.database.concurrency must be at least 1");
        }
        if (reservedForKnown < 0 || reservedForKnown > 1) {
            throw new IllegalArgumentException("identity.overload.database.reserved-for-known must be between 0 and 1");
        }
        this.concurrency = concurrency;
        this.otherLimit = concurrency - reservedThreads(concurrency, reservedForKnown);
        this.maxWaitNanos = maxWait.toNanos();
        this.queueCap = maxWaitNanos > 0 ? Math.max(0, queueCap) : 0;
        this.clock = clock;
        this.lastProgress = new AtomicLong(clock.getAsLong());
        this.faults = new DatabaseFaults(concurrency, clock);
        this.permits = new Semaphore(concurrency + this.queueCap);
        // A step enters the executor's queue only with a permit, so the queue never refuses: what waits is bounded
        // by the permits and by the waiting-time rule. (A SynchronousQueue would refuse spuriously while a thread that
        // just finished is not yet polling.)
        this.executor = new ThreadPoolExecutor(concurrency, concurrency, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(concurrency + this.queueCap), ServiceThreads.named("database"));
        executor.prestartAllCoreThreads();
        this.queueWait = Timer.builder(MetricNames.DATABASE_QUEUE_WAIT)
                .description("how long database steps waited for a thread").register(registry);
        Gauge.builder(MetricNames.DATABASE_QUEUE_DEPTH, this, DatabaseLane::waiting)
                .description("database steps waiting for a thread").register(registry);
        for (Share share : Share.values()) {
            Map<Refusal, Counter> counters = new EnumMap<>(Refusal.class);
            for (Refusal cause : Refusal.values()) {
                if (share == Share.KNOWN && cause == Refusal.SHARE_FULL) {
                    continue; // known work may use every thread
                }
                counters.put(cause, Counter.builder(MetricNames.DATABASE_REFUSED)
                        .description("requests refused with 503 overload by the database lane, by share and rule")
                        .tag("share", share.name().toLowerCase(Locale.ROOT)).tag("cause", cause.tag())
                        .register(registry));
            }
            refused.put(share, counters);
        }
        Gauge.builder(MetricNames.DATABASE_ACTIVE, active, AtomicInteger::get)
                .description("database steps running").register(registry);
        Gauge.builder(MetricNames.DATABASE_CONCURRENCY, this, DatabaseLane::concurrency)
                .description("threads for database steps").register(registry);
        LOG.infof("database steps: %d threads (%d reserved for known devices), waiting at most %d ms (at most %d"
                + " waiting)", concurrency, concurrency - otherLimit, TimeUnit.NANOSECONDS.toMillis(maxWaitNanos),
                this.queueCap);
    }

    /** Threads only known devices may use: the fraction rounded up, at least one of two or more, never all. */
    static int reservedThreads(int concurrency, double fraction) {
        if (fraction <= 0 || concurrency < 2) {
            return 0;
        }
        return Math.min(concurrency - 1, Math.max(1, (int) Math.ceil(concurrency * fraction)));
    }

    /**
     * Runs {@code step} on a lane thread, or fails with {@code overload} when it cannot get one within the allowed
     * wait (at once when that can be foreseen). A step whose deadline has passed by the time it starts is not run
     * ({@code deadline}).
     */
    public <T> CompletableFuture<T> run(Deadline deadline, Step<T> step) {
        return run(deadline, Share.KNOWN, step);
    }

    /** {@link #run(Deadline, Step)} within a share of the lane: {@link Share#OTHER} never takes the reserved threads. */
    public <T> CompletableFuture<T> run(Deadline deadline, Share share, Step<T> step) {
        boolean other = share == Share.OTHER;
        if (other && otherInLane.incrementAndGet() > otherLimit) {
            otherInLane.decrementAndGet();
            return refuse(share, Refusal.SHARE_FULL);
        }
        Refusal refusal = admissionRefusal();
        if (refusal == null && !permits.tryAcquire()) {
            refusal = Refusal.FULL;
        }
        if (refusal != null) {
            if (other) {
                otherInLane.decrementAndGet();
            }
            return refuse(share, refusal);
        }
        // Only a step that found every thread busy waits in the queue; one that found a thread free is not refused
        // for the time the scheduler took to start that thread (on a busy machine, tens of milliseconds).
        boolean queued = inLane.incrementAndGet() > concurrency;
        CompletableFuture<T> result = execute(deadline, share, step, queued);
        if (other) {
            // The place is given back when the step has finished or was refused, whichever way.
            result.whenComplete((value, failure) -> otherInLane.decrementAndGet());
        }
        return result;
    }

    private <T> CompletableFuture<T> refuse(Share share, Refusal cause) {
        refused.get(share).get(cause).increment();
        return CompletableFuture.failedFuture(refusal(cause));
    }

    /** The lane's refusal told as the database's fault or this service's overload ({@link DatabaseFaults}). */
    private ServiceUnavailableException refusal(Refusal cause) {
        return faults.databaseAtFault() ? DatabaseFaults.databaseDown() : ServiceUnavailableException.overload(cause.message);
    }

    /**
     * The answer to a request whose deadline passed before its decision: {@code backend_unavailable} while the
     * database is at fault (the request was most likely waiting on it, in a thread or for one), {@code deadline}
     * otherwise.
     */
    public ServiceUnavailableException expired() {
        return faults.databaseAtFault() ? DatabaseFaults.databaseDown() : ServiceUnavailableException.deadline();
    }

    /**
     * Runs a bulk step (one batch of an import: tens of milliseconds where a request's step takes one) only when it
     * leaves a thread free for the requests this lane exists for: admitted while fewer than {@code concurrency - 1}
     * steps are in the lane (with a single thread, while it is idle), never queued, never counted as a refused
     * request, and its duration is kept out of the step-time estimate that admits requests (one long batch would
     * otherwise make every request's expected wait look long and refuse it). A refusal ({@code overload}) means
     * "back off and try again"; it is nobody's answer.
     */
    public <T> CompletableFuture<T> runBulk(Step<T> step) {
        int limit = Math.max(1, concurrency - 1);
        for (int now = inLane.get(); ; now = inLane.get()) {
            if (now >= limit) {
                return CompletableFuture.failedFuture(ServiceUnavailableException.overload(
                        "the database threads are busy with requests"));
            }
            if (inLane.compareAndSet(now, now + 1)) {
                break;
            }
        }
        if (!permits.tryAcquire()) {
            inLane.decrementAndGet();
            return CompletableFuture.failedFuture(ServiceUnavailableException.overload(
                    "the database threads are busy with requests"));
        }
        return execute(null, Share.KNOWN, step, false);
    }

    /**
     * Runs an admitted step (its permit taken, counted in {@code inLane}); {@code deadline} null for a bulk step,
     * {@code queued} when it found every thread busy (only then is its wait held to max-wait).
     */
    private <T> CompletableFuture<T> execute(Deadline deadline, Share share, Step<T> step, boolean queued) {
        boolean bulk = deadline == null;
        long queuedAt = clock.getAsLong();
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                active.incrementAndGet();
                long startedAt = clock.getAsLong();
                lastProgress.set(startedAt);
                boolean ran = false;
                T value = null;
                Throwable failure = null;
                try {
                    long waited = startedAt - queuedAt;
                    if (!bulk) {
                        queueWait.record(waited, TimeUnit.NANOSECONDS);
                        if (queued && waited > maxWaitNanos && maxWaitNanos > 0) {
                            refused.get(share).get(Refusal.WAITED).increment();
                            throw refusal(Refusal.WAITED);
                        }
                        try {
                            deadline.check();
                        } catch (ServiceUnavailableException late) {
                            throw faults.databaseAtFault() ? DatabaseFaults.databaseDown() : late;
                        }
                    }
                    ran = !bulk;
                    faults.started(Thread.currentThread(), startedAt);
                    value = step.run();
                } catch (SQLException | RuntimeException refusedOrFailed) {
                    failure = BackendFailures.classify(refusedOrFailed);
                } catch (Error fatal) {
                    failure = fatal;
                } finally {
                    long finished = clock.getAsLong();
                    long took = finished - startedAt;
                    if (ran) {
                        // Moving average over about ten steps, as the bcrypt executor keeps for hashes.
                        stepNanos.accumulateAndGet(took, (average, sample) -> average + (sample - average) / 10);
                        if (failure == null) {
                            faults.succeeded(Thread.currentThread(), inLane.get() <= concurrency);
                        } else {
                            faults.failed(Thread.currentThread(), failure instanceof ServiceUnavailableException
                                    unavailable && unavailable.reason() == UnavailableReason.BACKEND_UNAVAILABLE);
                        }
                    }
                    lastProgress.set(finished);
                    active.decrementAndGet();
                    inLane.decrementAndGet();
                    permits.release();
                }
                // Measured and released before the result is completed, as the bcrypt executor does: completing runs
                // the caller's continuations (the decision, the answer) on this thread, which are neither the step's
                // time nor a busy database thread.
                if (failure == null) {
                    result.complete(value);
                } else {
                    result.completeExceptionally(failure);
                    if (failure instanceof Error fatal) {
                        throw fatal;
                    }
                }
            });
        } catch (RejectedExecutionException shutDown) {
            inLane.decrementAndGet();
            permits.release();
            return CompletableFuture.failedFuture(ServiceUnavailableException.overload("the service is stopping"));
        }
        return result;
    }

    /** Why a request may not even wait right now, or null when it may run or wait. */
    private Refusal admissionRefusal() {
        int ahead = inLane.get() - concurrency;
        if (ahead < 0) {
            return null; // a thread is free
        }
        if (queueCap == 0) {
            return Refusal.FULL;
        }
        if (clock.getAsLong() - lastProgress.get() > maxWaitNanos) {
            return Refusal.STALLED;
        }
        // The mean, not the worst case (every thread just started): behind ten busy threads whose steps take 40 ms
        // (a database slowed by a flood's reads), the first waiter waits 4 ms, not 40, and is not refused for it.
        long expectedWait = (ahead + 1) * stepNanos.get() / concurrency;
        return expectedWait > maxWaitNanos ? Refusal.EXPECTED_WAIT : null;
    }

    public int concurrency() {
        return concurrency;
    }

    /** Steps admitted and not yet running. */
    public int waiting() {
        return Math.max(0, inLane.get() - active.get());
    }

    @PreDestroy
    void shutdown() {
        executor.shutdownNow();
    }
}
