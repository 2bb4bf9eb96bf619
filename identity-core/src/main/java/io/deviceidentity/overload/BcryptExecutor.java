package io.deviceidentity.overload;

import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ThreadFactory;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Supplier;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;
import io.quarkus.runtime.Startup;

/**
 * The bulkhead in front of bcrypt: a fixed number of threads (the CPUs the pod may use) and a bounded queue.
 *
 * <p>Why not SmallRye's {@code @Bulkhead}: its queue only exists for asynchronous methods, a queued task is not
 * removed when its timeout fires, and a running bcrypt cannot be interrupted, so timed-out work would still burn
 * the CPU that the next requests need. Here every task is judged twice against its request's deadline:
 * <ol>
 *   <li>at admission, from the work already ahead of it and the measured hash time: if it could not finish in
 *       time it is refused at once ({@code overload}), costing nothing;</li>
 *   <li>when a thread picks it up: if the deadline has passed ({@code deadline}) or one hash no longer fits
 *       ({@code overload}), it is skipped without hashing.</li>
 * </ol>
 * The caller's future also completes with {@code deadline} when the deadline passes, so no answer outlives it.
 */
@Startup
@ApplicationScoped
public class BcryptExecutor {

    private static final Logger LOG = Logger.getLogger(BcryptExecutor.class);
    /** Weight of the newest measurement in the moving average of hash time. */
    private static final double SMOOTHING = 0.2;

    private final int concurrency;
    private final int queueCapacity;
    private final ThreadPoolExecutor executor;
    private final DeadlineTimer deadlineTimer;
    private final AtomicLong expectedNanos;
    private final Timer hashTimer;
    private final Counter skippedDeadline;
    private final Counter skippedOverload;

    public BcryptExecutor(OverloadConfig config, MeterRegistry registry, DeadlineTimer deadlineTimer) {
        this.deadlineTimer = deadlineTimer;
        OverloadConfig.Bcrypt bcrypt = config.bcrypt();
        this.concurrency = bcrypt.concurrency().orElse(Runtime.getRuntime().availableProcessors());
        if (concurrency < 1) {
            throw new IllegalArgumentException("identity.overload.bcrypt.concurrency must be at least 1");
        }
        long expected = bcrypt.expectedDuration().toNanos();
        this.queueCapacity = bcrypt.queue().orElse(derivedQueue(config.deadline().toNanos(), expected, concurrency));
        if (queueCapacity < 1) {
            throw new IllegalArgumentException("identity.overload.bcrypt.queue must be at least 1");
        }
        this.expectedNanos = new AtomicLong(Math.max(1, expected));
        this.executor = new ThreadPoolExecutor(concurrency, concurrency, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(queueCapacity), threads());
        executor.prestartAllCoreThreads();

        this.hashTimer = Timer.builder(MetricNames.BCRYPT_DURATION)
                .description("Time spent computing one bcrypt hash or verification")
                .publishPercentiles(0.5, 0.9, 0.99)
                .register(registry);
        this.skippedDeadline = skipped(registry, UnavailableReason.DEADLINE);
        this.skippedOverload = skipped(registry, UnavailableReason.OVERLOAD);
        Gauge.builder(MetricNames.BCRYPT_QUEUE_DEPTH, executor, e -> e.getQueue().size())
                .description("bcrypt tasks waiting for a thread").register(registry);
        Gauge.builder(MetricNames.BCRYPT_ACTIVE, executor, ThreadPoolExecutor::getActiveCount)
                .description("bcrypt tasks running").register(registry);
        Gauge.builder(MetricNames.BCRYPT_QUEUE_CAPACITY, this, BcryptExecutor::queueCapacity)
                .description("bcrypt queue bound").register(registry);
        Gauge.builder(MetricNames.BCRYPT_CONCURRENCY, this, BcryptExecutor::concurrency)
                .description("bcrypt threads").register(registry);
        LOG.infof("bcrypt executor: %d threads, queue of %d, deadline %s", concurrency, queueCapacity,
                config.deadline());
    }

    /** deadline ÷ hash time × threads: the most work that can still finish inside one deadline. */
    static int derivedQueue(long deadlineNanos, long expectedNanos, int concurrency) {
        long perThread = deadlineNanos / Math.max(1, expectedNanos);
        return (int) Math.max(1, Math.min(100_000, perThread * concurrency));
    }

    /**
     * Runs CPU-bound work for a request. The future fails with a {@link ServiceUnavailableException} when the work
     * is refused, skipped or not done by the deadline.
     */
    public <T> CompletableFuture<T> submit(Deadline deadline, Supplier<T> work) {
        long expected = expectedNanos.get();
        long ahead = executor.getQueue().size() + (long) executor.getActiveCount();
        long expectedFinish = (ahead / concurrency + 1) * expected;
        if (!deadline.allows(expectedFinish)) {
            skippedOverload.increment();
            return CompletableFuture.failedFuture(ServiceUnavailableException.overload(
                    "bcrypt work ahead of this request would not finish before its deadline"));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> run(deadline, work, result));
        } catch (RejectedExecutionException full) {
            skippedOverload.increment();
            return CompletableFuture.failedFuture(ServiceUnavailableException.overload("the bcrypt queue is full"));
        }
        return deadlineTimer.bound(deadline, result);
    }

    private <T> void run(Deadline deadline, Supplier<T> work, CompletableFuture<T> result) {
        if (deadline.hasPassed()) {
            // Nobody will read this answer (the caller got its 503 when the deadline passed): skip the hash.
            skippedDeadline.increment();
            result.completeExceptionally(ServiceUnavailableException.deadline());
            return;
        }
        if (!deadline.allows(expectedNanos.get())) {
            skippedOverload.increment();
            result.completeExceptionally(ServiceUnavailableException.overload(
                    "one bcrypt no longer fits before the request deadline"));
            return;
        }
        long start = System.nanoTime();
        try {
            T value = work.get();
            result.complete(value);
        } catch (RuntimeException | Error failure) {
            result.completeExceptionally(failure);
        } finally {
            long took = System.nanoTime() - start;
            hashTimer.record(took, TimeUnit.NANOSECONDS);
            expectedNanos.updateAndGet(old -> (long) (old + SMOOTHING * (took - old)));
        }
    }

    public int concurrency() {
        return concurrency;
    }

    public int queueCapacity() {
        return queueCapacity;
    }

    @PreDestroy
    void shutdown() {
        executor.shutdownNow();
    }

    private static Counter skipped(MeterRegistry registry, UnavailableReason reason) {
        return Counter.builder(MetricNames.BCRYPT_SKIPPED)
                .description("bcrypt work refused or skipped because it could not be answered in time")
                .tag(MetricNames.TAG_REASON, reason.label())
                .register(registry);
    }

    private static ThreadFactory threads() {
        AtomicInteger number = new AtomicInteger();
        // Answers are completed on these threads; they need the application's class loader to build responses.
        ClassLoader application = Thread.currentThread().getContextClassLoader();
        return runnable -> {
            Thread thread = new Thread(runnable, "bcrypt-" + number.incrementAndGet());
            thread.setDaemon(true);
            thread.setContextClassLoader(application);
            return thread;
        };
    }
}
