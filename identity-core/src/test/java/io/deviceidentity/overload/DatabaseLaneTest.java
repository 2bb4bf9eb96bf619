package io.deviceidentity.overload;

import static io.deviceidentity.overload.Refusals.reasonOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

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

    @Test
    void withAShortQueueARequestWaitsForAThreadAndRunsWhenOneFrees() throws Exception {
        AtomicLong now = new AtomicLong();
        DatabaseLane queued = new DatabaseLane(1, Duration.ofMillis(25), 10, now::get, registry);
        try {
            CountDownLatch running = new CountDownLatch(1);
            CompletableFuture<Boolean> first = queued.run(far(), () -> hold(running));
            assertTrue(running.await(5, TimeUnit.SECONDS));

            CompletableFuture<String> second = queued.run(far(), () -> "ran");

            assertFalse(second.isDone(), "waiting, not refused");
            assertEquals(1, queued.waiting());
            release.countDown();
            assertTrue(first.get(5, TimeUnit.SECONDS));
            assertEquals("ran", second.get(5, TimeUnit.SECONDS));
        } finally {
            queued.shutdown();
        }
    }

    @Test
    void aRequestWhoseForeseenWaitExceedsTheAllowanceIsRefusedAtOnce() throws Exception {
        AtomicLong now = new AtomicLong();
        // Steps are estimated at 2 ms until measured: with one thread busy, two may wait within 5 ms, not three.
        DatabaseLane queued = new DatabaseLane(1, Duration.ofMillis(5), 10, now::get, registry);
        try {
            CountDownLatch running = new CountDownLatch(1);
            queued.run(far(), () -> hold(running));
            assertTrue(running.await(5, TimeUnit.SECONDS));
            assertFalse(queued.run(far(), () -> 1).isDone());
            assertFalse(queued.run(far(), () -> 2).isDone());

            CompletableFuture<Integer> third = queued.run(far(), () -> 3);

            assertEquals(UnavailableReason.OVERLOAD, reasonOf(third));
        } finally {
            release.countDown();
            queued.shutdown();
        }
    }

    @Test
    void aStalledLaneRefusesAtOnceInsteadOfQueueing() throws Exception {
        AtomicLong now = new AtomicLong();
        DatabaseLane queued = new DatabaseLane(1, Duration.ofMillis(25), 10, now::get, registry);
        try {
            CountDownLatch running = new CountDownLatch(1);
            queued.run(far(), () -> hold(running));
            assertTrue(running.await(5, TimeUnit.SECONDS));
            now.addAndGet(TimeUnit.MILLISECONDS.toNanos(30)); // no step has finished for longer than the allowance

            CompletableFuture<Integer> refused = queued.run(far(), () -> 1);

            assertEquals(UnavailableReason.OVERLOAD, reasonOf(refused));
        } finally {
            release.countDown();
            queued.shutdown();
        }
    }

    @Test
    void aStepThatWaitedLongerThanTheAllowanceIsRefusedWithoutRunning() throws Exception {
        AtomicLong now = new AtomicLong();
        DatabaseLane queued = new DatabaseLane(1, Duration.ofMillis(25), 10, now::get, registry);
        try {
            CountDownLatch running = new CountDownLatch(1);
            CompletableFuture<Boolean> first = queued.run(far(), () -> hold(running));
            assertTrue(running.await(5, TimeUnit.SECONDS));
            AtomicInteger ran = new AtomicInteger();
            CompletableFuture<Integer> late = queued.run(far(), ran::incrementAndGet);
            now.addAndGet(TimeUnit.MILLISECONDS.toNanos(30));

            release.countDown();
            first.get(5, TimeUnit.SECONDS);

            assertEquals(UnavailableReason.OVERLOAD, reasonOf(late));
            assertEquals(0, ran.get());
        } finally {
            queued.shutdown();
        }
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
