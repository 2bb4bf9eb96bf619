package io.deviceidentity.overload;

import static io.deviceidentity.overload.Refusals.reasonOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class DatabaseLaneTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private final DatabaseLane lane = new DatabaseLane(2, registry);
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicLong now = new AtomicLong();
    private final List<DatabaseLane> lanes = new ArrayList<>();

    @AfterEach
    void stop() {
        release.countDown();
        lane.shutdown();
        lanes.forEach(DatabaseLane::shutdown);
    }

    /** Refusals counted under the share and cause tags given (null: any). */
    private double refused(String share, String cause) {
        return registry.find(MetricNames.DATABASE_REFUSED).counters().stream()
                .filter(c -> share == null || share.equals(c.getId().getTag("share")))
                .filter(c -> cause == null || cause.equals(c.getId().getTag("cause")))
                .mapToDouble(Counter::count).sum();
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
        assertEquals(1.0, refused("known", "full"));
        assertEquals(1.0, refused(null, null), "and no other refusal was counted");
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
    void whileTheDatabaseFailsARequestFindingEveryThreadBusyIsToldItIsTheDatabaseUntilAStepSucceeds() throws Exception {
        CompletableFuture<Object> failed = lane.run(far(), () -> {
            throw new SQLException("connection refused", "08001");
        });
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(failed));
        CountDownLatch bothRunning = new CountDownLatch(2);
        CompletableFuture<Boolean> first = lane.run(far(), () -> hold(bothRunning));
        CompletableFuture<Boolean> second = lane.run(far(), () -> hold(bothRunning));
        assertTrue(bothRunning.await(5, TimeUnit.SECONDS));

        CompletableFuture<Integer> refusedWhileFailing = lane.run(far(), () -> 1);

        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(refusedWhileFailing),
                "the threads are held by a database that does not answer: not this service's overload");
        assertEquals(1.0, refused("known", "full"), "still counted as the lane's refusal");
        release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS));
        CountDownLatch again = new CountDownLatch(2);
        CountDownLatch stillHeld = new CountDownLatch(1);
        CompletableFuture<Boolean> third = lane.run(far(), () -> holdUntil(again, stillHeld));
        CompletableFuture<Boolean> fourth = lane.run(far(), () -> holdUntil(again, stillHeld));
        assertTrue(again.await(5, TimeUnit.SECONDS));
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(lane.run(far(), () -> 1)),
                "a database that answered again makes a full lane overload once more");
        stillHeld.countDown();
        assertTrue(third.get(5, TimeUnit.SECONDS) && fourth.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aLaneHeldByStepsTheDatabaseDoesNotAnswerRefusesAsTheDatabaseBeforeAnyStepHasFailed() throws Exception {
        // Two threads, no queue, on the test's clock: both steps hang on a database that went silent (a killed
        // primary: the driver gives up only after its socket timeout), and requests keep coming.
        DatabaseLane silent = new DatabaseLane(2, Duration.ZERO, 0, now::get, registry);
        lanes.add(silent);
        CountDownLatch bothRunning = new CountDownLatch(2);
        CompletableFuture<Boolean> first = silent.run(far(), () -> hold(bothRunning));
        CompletableFuture<Boolean> second = silent.run(far(), () -> hold(bothRunning));
        assertTrue(bothRunning.await(5, TimeUnit.SECONDS));

        now.addAndGet(DatabaseFaults.STALL_NANOS - 1);
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(silent.run(far(), () -> 1)),
                "steps that have run for less than a stall: this service's overload");
        assertEquals(UnavailableReason.DEADLINE, silent.expired().reason());
        now.addAndGet(1);
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(silent.run(far(), () -> 1)),
                "every thread held by a database that does not answer: the database's doing");
        assertEquals(2.0, refused("known", "full"), "both still counted as the lane's refusals");
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, silent.expired().reason(),
                "a request whose deadline passes meanwhile is told it was the database");

        release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS));
        CountDownLatch again = new CountDownLatch(2);
        CountDownLatch stillHeld = new CountDownLatch(1);
        CompletableFuture<Boolean> third = silent.run(far(), () -> holdUntil(again, stillHeld));
        CompletableFuture<Boolean> fourth = silent.run(far(), () -> holdUntil(again, stillHeld));
        assertTrue(again.await(5, TimeUnit.SECONDS));
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(silent.run(far(), () -> 1)),
                "fresh steps in every thread: overload again");
        assertEquals(UnavailableReason.DEADLINE, silent.expired().reason(), "and a passed deadline is a deadline");
        stillHeld.countDown();
        assertTrue(third.get(5, TimeUnit.SECONDS) && fourth.get(5, TimeUnit.SECONDS));
    }

    @Test
    void theRefusalsWhileTheLaneDrainsTheBacklogOfAnOutageNameTheDatabase() throws Exception {
        DatabaseLane queued = queuedLane(Duration.ofMillis(25));
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(queued.run(far(), () -> {
            throw new SQLException("connection refused", "08001");
        })));
        // The database answers again; the devices that retried meanwhile fill the thread and the queue.
        CompletableFuture<Boolean> first = occupyTheThread(queued);
        CountDownLatch waiterRunning = new CountDownLatch(1);
        CountDownLatch waiterDone = new CountDownLatch(1);
        CompletableFuture<Boolean> waiter = queued.run(far(), () -> holdUntil(waiterRunning, waiterDone));
        CompletableFuture<Integer> behind = queued.run(far(), () -> 1);

        release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS), "a step succeeded, with others still waiting");
        assertTrue(waiterRunning.await(5, TimeUnit.SECONDS));
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(30));
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(queued.run(far(), () -> 1)),
                "the backlog the outage built is still draining: the database's doing");

        waiterDone.countDown();
        assertTrue(waiter.get(5, TimeUnit.SECONDS));
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(behind),
                "waited past the allowance in the backlog: the database's doing too");
        assertEquals(1, queued.run(far(), () -> 1).get(5, TimeUnit.SECONDS), "nothing waits now, and a step succeeds");
        CountDownLatch lastRunning = new CountDownLatch(1);
        CountDownLatch lastDone = new CountDownLatch(1);
        CompletableFuture<Boolean> last = queued.run(far(), () -> holdUntil(lastRunning, lastDone));
        assertTrue(lastRunning.await(5, TimeUnit.SECONDS));
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(30));
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(queued.run(far(), () -> 1)),
                "drained and answering: a full lane is this service's overload again");
        lastDone.countDown();
        assertTrue(last.get(5, TimeUnit.SECONDS));
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
        DatabaseLane queued = queuedLane(Duration.ofMillis(25));
        CompletableFuture<Boolean> first = occupyTheThread(queued);

        CompletableFuture<String> second = queued.run(far(), () -> "ran");

        assertFalse(second.isDone(), "waiting, not refused");
        assertEquals(1, queued.waiting());
        release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS));
        assertEquals("ran", second.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aRequestWhoseForeseenWaitExceedsTheAllowanceIsRefusedAtOnce() throws Exception {
        // Steps are estimated at 2 ms until measured: with one thread busy, two may wait within 5 ms, not three.
        DatabaseLane queued = queuedLane(Duration.ofMillis(5));
        occupyTheThread(queued);
        assertFalse(queued.run(far(), () -> 1).isDone());
        assertFalse(queued.run(far(), () -> 2).isDone());

        CompletableFuture<Integer> third = queued.run(far(), () -> 3);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(third));
    }

    @Test
    void behindManyBusyThreadsTheWaitIsForeseenFromHowOftenOneFrees() throws Exception {
        // Four threads whose measured steps are slow (~36 ms, a database slowed by a flood), 25 ms allowed: a thread
        // frees every ~9 ms, so two may wait (9 and 18 ms), not a third (27 ms). Judged by a whole step time, even
        // the first would have been refused.
        DatabaseLane slow = new DatabaseLane(4, Duration.ofMillis(25), 10, now::get, registry);
        lanes.add(slow);
        for (int i = 0; i < 4; i++) {
            CountDownLatch stepRunning = new CountDownLatch(1);
            CountDownLatch stepDone = new CountDownLatch(1);
            CompletableFuture<Boolean> step = slow.run(far(), () -> holdUntil(stepRunning, stepDone));
            assertTrue(stepRunning.await(5, TimeUnit.SECONDS));
            now.addAndGet(TimeUnit.MILLISECONDS.toNanos(100));
            stepDone.countDown();
            assertTrue(step.get(5, TimeUnit.SECONDS));
        }
        CountDownLatch allRunning = new CountDownLatch(4);
        for (int i = 0; i < 4; i++) {
            slow.run(far(), () -> hold(allRunning));
        }
        assertTrue(allRunning.await(5, TimeUnit.SECONDS));

        assertFalse(slow.run(far(), () -> 1).isDone(), "first waiter: ~9 ms");
        assertFalse(slow.run(far(), () -> 2).isDone(), "second waiter: ~18 ms");
        CompletableFuture<Integer> third = slow.run(far(), () -> 3);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(third));
        assertEquals(1.0, refused("known", "expected_wait"));
    }

    @Test
    void aStepsTimeLeavesOutWhatItsCallerRunsWhenItCompletes() throws Exception {
        // The caller's continuation (in the services: the decision and the answer) runs on the lane's thread when the
        // step completes. Here it takes a virtual second; were that counted, the estimate would become ~100 ms and a
        // request waiting behind one busy thread would be refused against the 25 ms allowed.
        DatabaseLane queued = queuedLane(Duration.ofMillis(25));
        CountDownLatch stepRunning = new CountDownLatch(1);
        CountDownLatch continuationAttached = new CountDownLatch(1);
        CompletableFuture<Boolean> step = queued.run(far(), () -> holdUntil(stepRunning, continuationAttached));
        assertTrue(stepRunning.await(5, TimeUnit.SECONDS));
        CompletableFuture<Boolean> continued = step.thenApply(ran -> {
            now.addAndGet(TimeUnit.SECONDS.toNanos(1));
            return ran;
        });
        continuationAttached.countDown();
        assertTrue(continued.get(5, TimeUnit.SECONDS));

        occupyTheThread(queued);
        CompletableFuture<Integer> waiter = queued.run(far(), () -> 1);

        assertFalse(waiter.isDone(), "the step took no time: the waiter may wait");
        assertEquals(0.0, refused(null, null));
    }

    @Test
    void aStalledLaneRefusesAtOnceInsteadOfQueueing() throws Exception {
        DatabaseLane queued = queuedLane(Duration.ofMillis(25));
        occupyTheThread(queued);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(30)); // no step has started or finished for longer than allowed

        CompletableFuture<Integer> refused = queued.run(far(), () -> 1);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(refused));
    }

    @Test
    void afterAQuietSpellTheBurstThatFillsEveryThreadStillLetsTheNextRequestWait() throws Exception {
        DatabaseLane queued = queuedLane(Duration.ofMillis(25));
        now.addAndGet(TimeUnit.SECONDS.toNanos(10)); // idle: nothing started or finished for ten seconds
        occupyTheThread(queued); // the storm's first request starts: the lane is busy, not stalled

        CompletableFuture<Integer> next = queued.run(far(), () -> 1);

        assertFalse(next.isDone(), "waiting, not refused as stalled");
        release.countDown();
        assertEquals(1, next.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aStepThatWaitedLongerThanTheAllowanceIsRefusedWithoutRunning() throws Exception {
        DatabaseLane queued = queuedLane(Duration.ofMillis(25));
        CompletableFuture<Boolean> first = occupyTheThread(queued);
        AtomicInteger ran = new AtomicInteger();
        CompletableFuture<Integer> late = queued.run(far(), ran::incrementAndGet);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(30));

        release.countDown();
        first.get(5, TimeUnit.SECONDS);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(late));
        assertEquals(0, ran.get());
    }

    @Test
    void aStepThatFoundAThreadFreeRunsHoweverLateTheSchedulerStartsIt() throws Exception {
        // Each reading of this clock is 30 ms after the one before: the free thread starts "later" than the
        // allowance, as it does on a machine whose CPUs are busy.
        AtomicLong ticking = new AtomicLong();
        DatabaseLane busyMachine = new DatabaseLane(1, Duration.ofMillis(25), 10,
                () -> ticking.addAndGet(TimeUnit.MILLISECONDS.toNanos(30)), registry);
        lanes.add(busyMachine);

        assertEquals(1, busyMachine.run(far(), () -> 1).get(5, TimeUnit.SECONDS));
    }

    /** One thread, on the test's clock, shut down after the test. */
    private DatabaseLane queuedLane(Duration maxWait) {
        DatabaseLane queued = new DatabaseLane(1, maxWait, 10, now::get, registry);
        lanes.add(queued);
        return queued;
    }

    /** Takes the lane's only thread until {@code release}; returns once the step is running. */
    private CompletableFuture<Boolean> occupyTheThread(DatabaseLane queued) throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        CompletableFuture<Boolean> held = queued.run(far(), () -> hold(running));
        assertTrue(running.await(5, TimeUnit.SECONDS));
        return held;
    }

    @Test
    void aBulkStepNeverTakesTheLastFreeThreadAndIsNotCountedAsARefusedRequest() throws Exception {
        CountDownLatch oneRunning = new CountDownLatch(1);
        CompletableFuture<Boolean> request = lane.run(far(), () -> hold(oneRunning));
        assertTrue(oneRunning.await(5, TimeUnit.SECONDS));
        AtomicInteger ran = new AtomicInteger();

        CompletableFuture<Integer> bulk = lane.runBulk(ran::incrementAndGet);

        assertTrue(bulk.isCompletedExceptionally(), "one of two threads busy: the other stays free for requests");
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(bulk));
        assertEquals(0.0, refused(null, null));
        CountDownLatch secondRunning = new CountDownLatch(1);
        CompletableFuture<Boolean> another = lane.run(far(), () -> hold(secondRunning));
        assertTrue(secondRunning.await(5, TimeUnit.SECONDS), "the free thread took a request");
        release.countDown();
        assertTrue(request.get(5, TimeUnit.SECONDS) && another.get(5, TimeUnit.SECONDS));
        assertEquals(0, ran.get());
    }

    @Test
    void aBulkStepRunsWhileAThreadStaysFreeAndRequestsStillGetThatThread() throws Exception {
        CountDownLatch bulkRunning = new CountDownLatch(1);
        CompletableFuture<Boolean> bulk = lane.runBulk(() -> hold(bulkRunning));
        assertTrue(bulkRunning.await(5, TimeUnit.SECONDS));

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(lane.runBulk(() -> true)), "one bulk step at a time here");
        assertEquals(7, lane.run(far(), () -> 7).get(5, TimeUnit.SECONDS));
        release.countDown();
        assertTrue(bulk.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aFloodOfOtherWorkFillsOnlyItsShareAndKnownDevicesStillGetTheReservedThreads() throws Exception {
        // Four threads, a quarter reserved, a short queue, on the test's clock: the flood (unknown client ids) may
        // hold three places, running or waiting; the fourth thread is the known fleet's whatever the flood does.
        DatabaseLane shared = new DatabaseLane(4, Duration.ofMillis(25), 10, 0.25, now::get, registry);
        lanes.add(shared);
        CountDownLatch floodRunning = new CountDownLatch(3);
        List<CompletableFuture<Boolean>> flood = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            flood.add(shared.run(far(), DatabaseLane.Share.OTHER, () -> hold(floodRunning)));
        }
        assertTrue(floodRunning.await(5, TimeUnit.SECONDS));

        for (int i = 0; i < 50; i++) {
            CompletableFuture<Integer> more = shared.run(far(), DatabaseLane.Share.OTHER, () -> 1);
            assertEquals(UnavailableReason.OVERLOAD, reasonOf(more), "the flood's share is full: refused at once");
        }
        CompletableFuture<String> known = shared.run(far(), DatabaseLane.Share.KNOWN, () -> "known");
        assertEquals("known", known.get(5, TimeUnit.SECONDS), "ran on the reserved thread, without waiting");
        assertEquals(50.0, refused("other", "share_full"), "the flood's refusals are counted as the flood's");
        assertEquals(0.0, refused("known", null), "and none of the known fleet's");

        release.countDown();
        for (CompletableFuture<Boolean> step : flood) {
            assertTrue(step.get(5, TimeUnit.SECONDS));
        }
        assertEquals(2, shared.run(far(), DatabaseLane.Share.OTHER, () -> 2).get(5, TimeUnit.SECONDS),
                "the share is given back when the flood's steps finish");
    }

    @Test
    void knownWorkMayUseEveryThread() throws Exception {
        DatabaseLane shared = new DatabaseLane(4, Duration.ZERO, 0, 0.25, now::get, registry);
        lanes.add(shared);
        CountDownLatch running = new CountDownLatch(4);
        List<CompletableFuture<Boolean>> known = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            known.add(shared.run(far(), DatabaseLane.Share.KNOWN, () -> hold(running)));
        }

        assertTrue(running.await(5, TimeUnit.SECONDS), "all four threads ran known work");
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(shared.run(far(), DatabaseLane.Share.OTHER, () -> 1)));
        release.countDown();
        for (CompletableFuture<Boolean> step : known) {
            assertTrue(step.get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void theReservationIsRoundedUpAndNeverTakesEveryThread() {
        assertEquals(0, DatabaseLane.reservedThreads(1, 0.25), "one thread cannot be split");
        assertEquals(1, DatabaseLane.reservedThreads(2, 0.25));
        assertEquals(3, DatabaseLane.reservedThreads(10, 0.25));
        assertEquals(9, DatabaseLane.reservedThreads(10, 1.0));
        assertEquals(0, DatabaseLane.reservedThreads(10, 0));
    }

    private boolean hold(CountDownLatch running) {
        return holdUntil(running, release);
    }

    private static boolean holdUntil(CountDownLatch running, CountDownLatch done) {
        running.countDown();
        try {
            return done.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    private static Deadline far() {
        return Deadline.after(System.nanoTime(), Duration.ofMinutes(5));
    }
}
