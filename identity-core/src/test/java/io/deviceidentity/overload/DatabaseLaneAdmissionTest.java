package io.deviceidentity.overload;

import static io.deviceidentity.overload.Refusals.reasonOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;


/**
 * The database lane's admission: a short wait bounded by time, foreseen from how often a thread frees, refused at
 * once when it cannot be met or the lane has stalled, and refused without running when a step waited too long.
 */
class DatabaseLaneAdmissionTest {

    private final DatabaseLanes lanes = new DatabaseLanes();
    private final Lane lane = lanes.withoutQueue(2);

    @AfterEach
    void stop() {
        lanes.close();
    }

    @Test
    void aRequestFindingEveryThreadBusyIsRefusedAtOnceAndNeverRuns() throws Exception {
        CountDownLatch bothRunning = new CountDownLatch(2);
        CompletableFuture<Boolean> first = lane.run(DatabaseLanes.far(), () -> lanes.hold(bothRunning));
        CompletableFuture<Boolean> second = lane.run(DatabaseLanes.far(), () -> lanes.hold(bothRunning));
        assertTrue(bothRunning.await(5, TimeUnit.SECONDS));
        AtomicInteger ran = new AtomicInteger();

        CompletableFuture<Integer> third = lane.run(DatabaseLanes.far(), ran::incrementAndGet);

        assertTrue(third.isCompletedExceptionally(), "refused before run() returned: nothing waits");
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(third));
        assertEquals(1.0, lanes.refused("known", "full"));
        assertEquals(1.0, lanes.refused(null, null), "and no other refusal was counted");
        lanes.release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS));
        assertEquals(0, ran.get());
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
        Lane queued = lanes.queued(Duration.ofMillis(25));
        CompletableFuture<Boolean> first = lanes.occupyTheThread(queued);

        CompletableFuture<String> second = queued.run(DatabaseLanes.far(), () -> "ran");

        assertFalse(second.isDone(), "waiting, not refused");
        assertEquals(1, queued.waiting());
        lanes.release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS));
        assertEquals("ran", second.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aRequestWhoseForeseenWaitExceedsTheAllowanceIsRefusedAtOnce() throws Exception {
        // Steps are estimated at 2 ms until measured: with one thread busy, two may wait within 5 ms, not three.
        Lane queued = lanes.queued(Duration.ofMillis(5));
        lanes.occupyTheThread(queued);
        assertFalse(queued.run(DatabaseLanes.far(), () -> 1).isDone());
        assertFalse(queued.run(DatabaseLanes.far(), () -> 2).isDone());

        CompletableFuture<Integer> third = queued.run(DatabaseLanes.far(), () -> 3);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(third));
    }

    @Test
    void behindManyBusyThreadsTheWaitIsForeseenFromHowOftenOneFrees() throws Exception {
        // Four threads whose measured steps are slow (~36 ms, a database slowed by a flood), 25 ms allowed: a thread
        // frees every ~9 ms, so two may wait (9 and 18 ms), not a third (27 ms). Judged by a whole step time, even
        // the first would have been refused.
        Lane slow = lanes.start(4, Duration.ofMillis(25), 10, 0, lanes.now::get);
        for (int i = 0; i < 4; i++) {
            CountDownLatch stepRunning = new CountDownLatch(1);
            CountDownLatch stepDone = new CountDownLatch(1);
            CompletableFuture<Boolean> step = slow.run(DatabaseLanes.far(), () -> DatabaseLanes.holdUntil(stepRunning, stepDone));
            assertTrue(stepRunning.await(5, TimeUnit.SECONDS));
            lanes.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
            stepDone.countDown();
            assertTrue(step.get(5, TimeUnit.SECONDS));
        }
        CountDownLatch allRunning = new CountDownLatch(4);
        for (int i = 0; i < 4; i++) {
            slow.run(DatabaseLanes.far(), () -> lanes.hold(allRunning));
        }
        assertTrue(allRunning.await(5, TimeUnit.SECONDS));

        assertFalse(slow.run(DatabaseLanes.far(), () -> 1).isDone(), "first waiter: ~9 ms");
        assertFalse(slow.run(DatabaseLanes.far(), () -> 2).isDone(), "second waiter: ~18 ms");
        CompletableFuture<Integer> third = slow.run(DatabaseLanes.far(), () -> 3);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(third));
        assertEquals(1.0, lanes.refused("known", "expected_wait"));
    }

    @Test
    void aStepsTimeLeavesOutWhatItsCallerRunsWhenItCompletes() throws Exception {
        // The caller's continuation (in the services: the decision and the answer) runs on the lane's thread when the
        // step completes. Here it takes a virtual second; were that counted, the estimate would become ~100 ms and a
        // request waiting behind one busy thread would be refused against the 25 ms allowed.
        Lane queued = lanes.queued(Duration.ofMillis(25));
        CountDownLatch stepRunning = new CountDownLatch(1);
        CountDownLatch continuationAttached = new CountDownLatch(1);
        CompletableFuture<Boolean> step = queued.run(DatabaseLanes.far(), () -> DatabaseLanes.holdUntil(stepRunning, continuationAttached));
        assertTrue(stepRunning.await(5, TimeUnit.SECONDS));
        CompletableFuture<Boolean> continued = step.thenApply(ran -> {
            lanes.now.addAndGet(TimeUnit.SECONDS.toNanos(1));
            return ran;
        });
        continuationAttached.countDown();
        assertTrue(continued.get(5, TimeUnit.SECONDS));

        lanes.occupyTheThread(queued);
        CompletableFuture<Integer> waiter = queued.run(DatabaseLanes.far(), () -> 1);

        assertFalse(waiter.isDone(), "the step took no time: the waiter may wait");
        assertEquals(0.0, lanes.refused(null, null));
    }

    @Test
    void aStalledLaneRefusesAtOnceInsteadOfQueueing() throws Exception {
        Lane queued = lanes.queued(Duration.ofMillis(25));
        lanes.occupyTheThread(queued);
        lanes.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(30)); // no step has started or finished for longer than allowed

        CompletableFuture<Integer> refused = queued.run(DatabaseLanes.far(), () -> 1);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(refused));
    }

    @Test
    void afterAQuietSpellTheBurstThatFillsEveryThreadStillLetsTheNextRequestWait() throws Exception {
        Lane queued = lanes.queued(Duration.ofMillis(25));
        lanes.now.addAndGet(TimeUnit.SECONDS.toNanos(10)); // idle: nothing started or finished for ten seconds
        lanes.occupyTheThread(queued); // the storm's first request starts: the lane is busy, not stalled

        CompletableFuture<Integer> next = queued.run(DatabaseLanes.far(), () -> 1);

        assertFalse(next.isDone(), "waiting, not refused as stalled");
        lanes.release.countDown();
        assertEquals(1, next.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aStepThatWaitedLongerThanTheAllowanceIsRefusedWithoutRunning() throws Exception {
        Lane queued = lanes.queued(Duration.ofMillis(25));
        CompletableFuture<Boolean> first = lanes.occupyTheThread(queued);
        AtomicInteger ran = new AtomicInteger();
        CompletableFuture<Integer> late = queued.run(DatabaseLanes.far(), ran::incrementAndGet);
        lanes.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(30));

        lanes.release.countDown();
        first.get(5, TimeUnit.SECONDS);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(late));
        assertEquals(0, ran.get());
    }

    @Test
    void aStepThatFoundAThreadFreeRunsHoweverLateTheSchedulerStartsIt() throws Exception {
        // Each reading of this clock is 30 ms after the one before: the free thread starts "later" than the
        // allowance, as it does on a machine whose CPUs are busy.
        AtomicLong ticking = new AtomicLong();
        Lane busyMachine = lanes.start(1, Duration.ofMillis(25), 10, 0,
                () -> ticking.addAndGet(TimeUnit.MILLISECONDS.toNanos(30)));

        assertEquals(1, busyMachine.run(DatabaseLanes.far(), () -> 1).get(5, TimeUnit.SECONDS));
    }
}
