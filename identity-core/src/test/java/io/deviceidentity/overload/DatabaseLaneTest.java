package io.deviceidentity.overload;

import static io.deviceidentity.overload.Refusals.reasonOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class DatabaseLaneTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final DatabaseLane lane = new DatabaseLane(2, registry);
    private final CountDownLatch release = new CountDownLatch(1);

    @AfterEach
    void stop() {
        release.countDown();
        lane.shutdown();
    }

    @Test
    void aRequestFindingEveryThreadBusyIsRefusedAtOnceAndNeverRuns() throws Exception {
        CountDownLatch bothRunning = new CountDownLatch(2);
        CompletableFuture<Boolean> first = lane.run(far(), () -> hold(bothRunning));
        CompletableFuture<Boolean> second = lane.run(far(), () -> hold(bothRunning));
        assertTrue(bothRunning.await(5, TimeUnit.SECONDS));
        AtomicInteger ran = new AtomicInteger();

        CompletableFuture<Integer> third = lane.run(far(), ran::incrementAndGet);

        assertTrue(third.isCompletedExceptionally(), "refused before run() returned: nothing waits");
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(third));
        assertEquals(1.0, registry.get(MetricNames.DATABASE_REFUSED).counter().count());
        release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS));
        assertEquals(0, ran.get());
    }

    @Test
    void aDatabaseFailureComesBackAsBackendUnavailable() {
        CompletableFuture<Object> failed = lane.run(far(), () -> {
            throw new SQLException("connection refused", "08001");
        });

        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(failed));
    }

    @Test
    void aStepWhoseDeadlineHasPassedIsNotRun() {
        AtomicInteger ran = new AtomicInteger();

        CompletableFuture<Integer> late = lane.run(new Deadline(0, System.nanoTime() - 1), ran::incrementAndGet);

        assertEquals(UnavailableReason.DEADLINE, reasonOf(late));
        assertEquals(0, ran.get());
    }

    private boolean hold(CountDownLatch running) {
        running.countDown();
        try {
            return release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Deadline far() {
        return Deadline.after(System.nanoTime(), Duration.ofMinutes(5));
    }
}
