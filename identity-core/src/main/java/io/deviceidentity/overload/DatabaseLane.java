package io.deviceidentity.overload;

import java.sql.SQLException;
import java.util.concurrent.ArrayBlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.Semaphore;
import java.util.concurrent.ThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import jakarta.annotation.PreDestroy;
import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.eclipse.microprofile.config.inject.ConfigProperty;
import org.jboss.logging.Logger;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;

/**
 * Runs the blocking database step of a request (one pooled connection, one statement) on threads of its own, with
 * <strong>no queue</strong>: a request either gets a thread now or is answered 503 {@code overload} at once.
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

    private final int concurrency;
    private final ThreadPoolExecutor executor;
    private final Semaphore permits;
    private final AtomicInteger active = new AtomicInteger();
    private final Counter refused;

    @Inject
    public DatabaseLane(OverloadConfig config, MeterRegistry registry,
            @ConfigProperty(name = "quarkus.datasource.jdbc.max-size", defaultValue = "20") int poolMaxSize) {
        this(config.database().concurrency().orElse(poolMaxSize), registry);
    }

    DatabaseLane(int concurrency, MeterRegistry registry) {
        if (concurrency < 1) {
            throw new IllegalArgumentException("identity.overload.database.concurrency must be at least 1");
        }
        this.concurrency = concurrency;
        this.permits = new Semaphore(concurrency);
        // A step enters the executor's queue only with a permit, one per thread: it is taken by a free thread at
        // once. (A SynchronousQueue would refuse spuriously while a thread that just finished is not yet polling.)
        this.executor = new ThreadPoolExecutor(concurrency, concurrency, 0, TimeUnit.MILLISECONDS,
                new ArrayBlockingQueue<>(concurrency), ServiceThreads.named("database"));
        executor.prestartAllCoreThreads();
        this.refused = Counter.builder(MetricNames.DATABASE_REFUSED)
                .description("requests refused with 503 overload because every database thread was busy")
                .register(registry);
        Gauge.builder(MetricNames.DATABASE_ACTIVE, active, AtomicInteger::get)
                .description("database steps running").register(registry);
        Gauge.builder(MetricNames.DATABASE_CONCURRENCY, this, DatabaseLane::concurrency)
                .description("threads for database steps (no queue)").register(registry);
        LOG.infof("database steps: %d threads, no queue", concurrency);
    }

    /**
     * Runs {@code step} on a free lane thread, or fails at once with {@code overload} when there is none. A step
     * whose deadline has passed by the time it starts is not run ({@code deadline}).
     */
    public <T> CompletableFuture<T> run(Deadline deadline, Step<T> step) {
        if (!permits.tryAcquire()) {
            refused.increment();
            return CompletableFuture.failedFuture(ServiceUnavailableException.overload(
                    "every database thread is busy"));
        }
        CompletableFuture<T> result = new CompletableFuture<>();
        try {
            executor.execute(() -> {
                active.incrementAndGet();
                try {
                    deadline.check();
                    result.complete(step.run());
                } catch (SQLException | RuntimeException failure) {
                    result.completeExceptionally(BackendFailures.classify(failure));
                } catch (Error fatal) {
                    result.completeExceptionally(fatal);
                    throw fatal;
                } finally {
                    active.decrementAndGet();
                    permits.release();
                }
            });
        } catch (RejectedExecutionException shutDown) {
            permits.release();
            return CompletableFuture.failedFuture(ServiceUnavailableException.overload("the service is stopping"));
        }
        return result;
    }

    public int concurrency() {
        return concurrency;
    }

    @PreDestroy
    void shutdown() {
        executor.shutdownNow();
    }
}
