package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.LongSupplier;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * Database lanes for one test: metered into one registry, on the test's virtual clock where asked, their steps held
 * until {@link #release}, every lane shut down by {@link #close}.
 */
final class DatabaseLanes implements AutoCloseable {

    final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    final CountDownLatch release = new CountDownLatch(1);
    final AtomicLong now = new AtomicLong();
    /** The refusals answered later ({@link Later}), in order, until {@link #runLater}; immediately unless asked. */
    private final List<Runnable> later = new ArrayList<>();
    private volatile boolean keepLater;
    private final List<Lane> lanes = new ArrayList<>();

    /** Without a queue: all threads busy means refused at once. */
    Lane withoutQueue(int concurrency) {
        return start(concurrency, Duration.ZERO, 0, 0, System::nanoTime);
    }

    /** One thread, on the test's clock. */
    Lane queued(Duration maxWait) {
        return start(1, maxWait, 10, 0, now::get);
    }

    Lane start(int concurrency, Duration maxWait, int queue, double reservedForKnown, LongSupplier clock) {
        Lane lane = Lanes.database(concurrency, maxWait, queue, reservedForKnown, clock, this::after, registry);
        lanes.add(lane);
        return lane;
    }

    private void after(long nanos, Runnable task) {
        if (!keepLater) {
            task.run();
            return;
        }
        synchronized (later) {
            later.add(task);
        }
    }

    /** From now on, refusals answered later wait for {@link #runLater} (the test moves its clock meanwhile). */
    void keepLater() {
        keepLater = true;
    }

    /** Runs the refusals kept for later; returns how many there were. */
    int runLater() {
        List<Runnable> due;
        synchronized (later) {
            due = new ArrayList<>(later);
            later.clear();
        }
        due.forEach(Runnable::run);
        return due.size();
    }

    /** Takes the lane's only thread until {@link #release}; returns once the step is running. */
    CompletableFuture<Boolean> occupyTheThread(Lane lane) throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        CompletableFuture<Boolean> held = lane.run(far(), () -> hold(running));
        assertTrue(running.await(5, TimeUnit.SECONDS));
        return held;
    }

    /** Refusals counted under the share and cause tags given (null: any). */
    double refused(String share, String cause) {
        return registry.find(MetricNames.DATABASE_REFUSED).counters().stream()
                .filter(c -> share == null || share.equals(c.getId().getTag("share")))
                .filter(c -> cause == null || cause.equals(c.getId().getTag("cause")))
                .mapToDouble(Counter::count).sum();
    }

    boolean hold(CountDownLatch running) {
        return holdUntil(running, release);
    }

    static boolean holdUntil(CountDownLatch running, CountDownLatch done) {
        running.countDown();
        try {
            return done.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    static Deadline far() {
        return Deadline.after(System.nanoTime(), Duration.ofMinutes(5));
    }

    @Override
    public void close() {
        release.countDown();
        lanes.forEach(Lane::shutdown);
    }
}
