package io.deviceidentity.overload;

import static io.deviceidentity.credentials.CheckCost.UNIT;
import static io.deviceidentity.overload.Refusals.reasonOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * The bcrypt lane's admission, on a virtual clock for the waiting-time rule (deadlines far away unless a test is
 * about them). One thread, expected hash time 80 ms, max wait 1 s, interval 100 ms, target wait 2 hashes = 160 ms.
 */
class BcryptLaneAdmissionTest {

    private static final Duration FAR = Duration.ofMinutes(5);

    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private final AtomicLong now = new AtomicLong();
    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private Lane lane;

    @AfterEach
    void stop() {
        release.countDown();
        if (lane != null) {
            lane.shutdown();
        }
    }

    @Test
    void theHardCapDefaultsToWhatTheMaxWaitCanHold() {
        assertEquals(26, Lanes.derivedQueue(Duration.ofSeconds(1).toNanos(),
                Duration.ofMillis(80).toNanos(), 2), "ceil(1000 / 80) = 13 per thread");
        lane = start(TestOverloadConfig.defaults().withConcurrency(2));
        assertEquals(2, lane.concurrency());
        assertEquals(26, lane.queueCapacity());
    }

    @Test
    void whileTheQueueDrainsRecentlyARequestMayWaitUpToTheMaxWait() throws Exception {
        lane = start(TestOverloadConfig.defaults().withQueue(100));
        occupyTheThread();

        // Waiting ahead w, one running: expected wait (w + 1) x 80 ms <= 1000 ms admits w = 0..11.
        List<CompletableFuture<Boolean>> admitted = new ArrayList<>();
        for (int i = 0; i < 12; i++) {
            CompletableFuture<Boolean> task = lane.submit(far(), UNIT, () -> true);
            assertTrue(!task.isDone(), "request " + i + " waits");
            admitted.add(task);
        }
        CompletableFuture<Boolean> refused = lane.submit(far(), UNIT, () -> true);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(refused));
        assertEquals(1.0, refused("admission"));
        release.countDown();
        for (CompletableFuture<Boolean> task : admitted) {
            assertTrue(task.get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void onceTheQueueHasStoodForAnIntervalOnlyTwoHashTimesOfWaitingAreAdmitted() throws Exception {
        lane = start(TestOverloadConfig.defaults().withQueue(100));
        occupyTheThread();
        CompletableFuture<Boolean> first = lane.submit(far(), UNIT, () -> true);

        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(150)); // non-empty since t = 0: the queue stands
        assertEquals(TimeUnit.MILLISECONDS.toNanos(160), lane.allowedWaitNanos());
        CompletableFuture<Boolean> second = lane.submit(far(), UNIT, () -> true); // (1 + 1) x 80 = 160: admitted
        CompletableFuture<Boolean> third = lane.submit(far(), UNIT, () -> true); // (2 + 1) x 80 = 240: refused

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(third));
        assertTrue(!first.isDone() && !second.isDone());
    }

    @Test
    void aRequestTakenOffTheQueueAfterWaitingLongerThanAllowedIsRefusedAndNotHashed() {
        lane = start(TestOverloadConfig.defaults().withQueue(100));
        occupyTheThread();
        AtomicInteger hashed = new AtomicInteger();
        CompletableFuture<Integer> waited = lane.submit(far(), UNIT, hashed::incrementAndGet);

        // Admitted with the burst allowance (1 s), it waits 1.5 s: the hashes ahead took longer than measured.
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1500));
        release.countDown();

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(waited));
        assertEquals(0, hashed.get());
        assertEquals(1.0, refused("dequeue"));
    }

    @Test
    void aRequestAdmittedUnderTheBurstAllowanceIsServedEvenIfTheQueueStandsMeanwhile() throws Exception {
        lane = start(TestOverloadConfig.defaults().withQueue(100));
        occupyTheThread();
        CompletableFuture<Boolean> admitted = lane.submit(far(), UNIT, () -> true); // allowance 1 s

        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(500)); // the queue now stands: newcomers get 160 ms
        CompletableFuture<Boolean> newcomer1 = lane.submit(far(), UNIT, () -> true); // (1 + 1) x 80 = 160: admitted
        CompletableFuture<Boolean> newcomer2 = lane.submit(far(), UNIT, () -> true); // 240: refused
        release.countDown();

        assertTrue(admitted.get(5, TimeUnit.SECONDS), "waited 500 ms of its 1 s: hashed");
        assertTrue(newcomer1.get(5, TimeUnit.SECONDS));
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(newcomer2));
        assertEquals(0.0, refused("dequeue"));
    }

    @Test
    void aQueueEmptiedByRefusalsStaysOverloadedUntilAThreadIsFoundFree() {
        lane = start(TestOverloadConfig.defaults().withQueue(100));
        occupyTheThread();
        CompletableFuture<Boolean> stale = lane.submit(far(), UNIT, () -> true);
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(1500)); // stale: refused when taken; the queue is then empty
        release.countDown();
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(stale));

        // Two measured hash times (the occupying task's real duration moved the average), not the burst allowance.
        assertTrue(lane.allowedWaitNanos() < TimeUnit.SECONDS.toNanos(1),
                "refusing stale work is no sign of spare capacity");
        lane.submit(far(), UNIT, () -> true); // finds the thread free: capacity to spare
        assertEquals(TimeUnit.SECONDS.toNanos(1), lane.allowedWaitNanos());
    }

    @Test
    void isOverloadedOnlyWhileTheQueueStandsWithWorkInIt() {
        lane = start(TestOverloadConfig.defaults().withQueue(100));
        occupyTheThread();
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(150));
        assertTrue(!lane.overloaded(), "nothing waiting: refusing more would leave the thread idle");

        lane.submit(far(), UNIT, () -> true);

        assertTrue(lane.overloaded());
    }

    @Test
    void refusesWorkAtOnceWhenTheHardCapIsReached() throws Exception {
        lane = start(TestOverloadConfig.defaults().withMaxWait(Duration.ofSeconds(10)).withQueue(2));
        CompletableFuture<Boolean> running = occupyTheThread();
        CompletableFuture<Boolean> queued1 = lane.submit(far(), UNIT, () -> true);
        CompletableFuture<Boolean> queued2 = lane.submit(far(), UNIT, () -> true);

        CompletableFuture<Boolean> refused = lane.submit(far(), UNIT, () -> true);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(refused));
        org.junit.jupiter.api.Assertions.assertThrows(ServiceUnavailableException.class,
                () -> lane.refuseIfSaturated(far(), UNIT), "the same answer without submitting");
        release.countDown();
        assertTrue(running.get(5, TimeUnit.SECONDS));
        assertTrue(queued1.get(5, TimeUnit.SECONDS));
        assertTrue(queued2.get(5, TimeUnit.SECONDS));
    }

    @Test
    void refusesWorkAtAdmissionThatCouldNotFinishBeforeItsDeadline() {
        // One hash is expected to take 80 ms; a request with 50 ms left cannot make it even on an idle lane.
        lane = start(TestOverloadConfig.defaults());
        AtomicInteger hashed = new AtomicInteger();

        CompletableFuture<Integer> refused = lane.submit(Deadline.after(System.nanoTime(), Duration.ofMillis(50)), UNIT,
                hashed::incrementAndGet);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(refused));
        assertEquals(0, hashed.get());
    }

    @Test
    void answersDeadlineWhenTheDeadlinePassesAndNeverStartsTheQueuedWork() throws Exception {
        lane = start(TestOverloadConfig.defaults().withMaxWait(Duration.ofSeconds(10)));
        occupyTheThread();
        AtomicInteger hashed = new AtomicInteger();

        // Admission needs 160 ms of the deadline left (the running hash and this one, 80 ms each, estimated): a
        // second leaves a busy machine's scheduler 840 ms between these two lines before the test would misjudge.
        CompletableFuture<Integer> late = lane.submit(Deadline.after(System.nanoTime(), Duration.ofSeconds(1)), UNIT,
                hashed::incrementAndGet);

        assertEquals(UnavailableReason.DEADLINE, reasonOf(late));
        release.countDown();
        // The only thread is free again; the expired task must have been dropped, not run.
        assertTrue(lane.submit(far(), UNIT, () -> true).get(5, TimeUnit.SECONDS));
        assertEquals(0, hashed.get());
        assertEquals(1.0, registry.get(MetricNames.BCRYPT_SKIPPED).counter().count());
    }

    @Test
    void anEstimateMadeOfSlowExpensiveHashesNeverStopsAnIdleLaneFromAdmittingACheapCheck() throws Exception {
        lane = start(TestOverloadConfig.defaults());
        // An attacker's cost-14 rows (16 units), each taking 7.5 s of wall time on a contended machine: four of them
        // used to push the moving average of hash time past the 4 s deadline, after which nothing was admitted, so
        // nothing was measured, for good.
        for (int i = 0; i < 4; i++) {
            assertTrue(lane.submit(deadline(), 16, () -> took(Duration.ofMillis(7500))).get(5, TimeUnit.SECONDS),
                    "slow expensive hash " + i + " admitted to the idle lane");
        }

        AtomicInteger hashed = new AtomicInteger();
        CompletableFuture<Integer> later = lane.submit(deadline(), UNIT, hashed::incrementAndGet);

        assertEquals(1, later.get(5, TimeUnit.SECONDS), "a cost-10 check on an idle lane is admitted and hashed");
        assertEquals(0.0, refused("admission"));
    }

    @Test
    void anEstimatePastTheDeadlineIsCorrectedByTheNextCheckAnIdleLaneAdmits() throws Exception {
        lane = start(TestOverloadConfig.defaults());
        // Cost-10 hashes that took 6 s each (a throttled CPU): the time per unit alone is past the deadline.
        for (int i = 0; i < 10; i++) {
            lane.submit(deadline(), UNIT, () -> took(Duration.ofSeconds(6))).get(5, TimeUnit.SECONDS);
        }
        long slow = lane.nanosPerUnit();
        assertTrue(slow > Duration.ofSeconds(4).toNanos(), "the estimate is past the deadline: " + slow);

        assertTrue(lane.submit(deadline(), UNIT, () -> took(Duration.ofMillis(80))).get(5, TimeUnit.SECONDS),
                "admitted at the configured hash time while a thread is free");

        assertTrue(lane.nanosPerUnit() < slow, "its measurement brings the estimate down");
        assertTrue(!lane.refusesWhileIdle());
    }

    @Test
    void aCheapCheckWaitingBehindOthersIsJudgedByTimePerUnitNotByTheSlowExpensiveHashes() throws Exception {
        lane = start(TestOverloadConfig.defaults().withQueue(100));
        for (int i = 0; i < 4; i++) {
            lane.submit(deadline(), 16, () -> took(Duration.ofMillis(7500))).get(5, TimeUnit.SECONDS);
        }
        occupyTheThread();

        // 7.5 s ÷ 16 units ≈ 470 ms a unit: one unit ahead and its own fit the deadline and the 1 s burst allowance.
        CompletableFuture<Boolean> queued = lane.submit(deadline(), UNIT, () -> true);
        release.countDown();

        assertTrue(queued.get(5, TimeUnit.SECONDS));
    }

    @Test
    void anExpensiveRowTakesItsRealShareOfTheQueue() {
        lane = start(TestOverloadConfig.defaults().withQueue(100));
        CompletableFuture<Boolean> expensive = lane.submit(far(), 16, this::blockUntilReleased); // 16 x 80 ms
        awaitStarted();

        // 1.28 s of work ahead of it: beyond the 1 s allowance, though it is a single request.
        CompletableFuture<Boolean> behind = lane.submit(far(), UNIT, () -> true);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(behind));
        assertTrue(!expensive.isDone());
    }

    @Test
    void anIdleLaneRefusesOnlyWorkThatCouldNotFinishInTimeEvenAtTheConfiguredHashTime() {
        lane = start(TestOverloadConfig.defaults());
        AtomicInteger hashed = new AtomicInteger();

        // A cost-16 row: 64 units x 80 ms = 5.1 s, past the 4 s deadline before it starts.
        CompletableFuture<Integer> tooDear = lane.submit(deadline(), 64, hashed::incrementAndGet);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(tooDear));
        assertEquals(0, hashed.get());
        assertTrue(!lane.refusesWhileIdle(), "a cost-10 check would still be admitted");
    }

    @Test
    void aDeadlineShorterThanOneConfiguredCheckStopsTheStartNamingTheSettingAndItsMinimum() {
        // An idle lane would refuse every check, the warm-up's too: the replica could never become ready.
        IllegalArgumentException refused = org.junit.jupiter.api.Assertions.assertThrows(
                IllegalArgumentException.class, () -> start(TestOverloadConfig.defaults().withDeadline(Duration.ofMillis(50))));

        assertTrue(refused.getMessage().contains("identity.overload.deadline (IDENTITY_OVERLOAD_DEADLINE) is 50ms"),
                refused.getMessage());
        assertTrue(refused.getMessage().contains("Set the deadline above 80ms"), refused.getMessage());
    }

    @Test
    void hashesRunUnderSchedIdle() throws Exception {
        org.junit.jupiter.api.Assumptions.assumeTrue(
                java.nio.file.Files.exists(java.nio.file.Path.of("/proc/thread-self/stat")), "Linux only");
        lane = start(TestOverloadConfig.defaults().withIdlePriority(true));

        // A SCHED_IDLE thread on a saturated machine runs only in the gaps: the bound is a hang guard, not a limit.
        int policy = lane.submit(far(), UNIT, IdleSchedulingTest::currentPolicy).get(2, TimeUnit.MINUTES);

        assertEquals(IdleScheduling.SCHED_IDLE, policy);
    }

    private Lane start(TestOverloadConfig config) {
        return Lanes.bcrypt(config, registry, new DeadlineTimer(), now::get);
    }

    private CompletableFuture<Boolean> occupyTheThread() {
        CompletableFuture<Boolean> running = lane.submit(far(), UNIT, this::blockUntilReleased);
        awaitStarted();
        return running;
    }

    private void awaitStarted() {
        try {
            assertTrue(started.await(5, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }

    /** Work that takes {@code duration} on the virtual clock. */
    private boolean took(Duration duration) {
        now.addAndGet(duration.toNanos());
        return true;
    }

    /** The documented request deadline, 4 s, from now. */
    private static Deadline deadline() {
        return Deadline.after(System.nanoTime(), Duration.ofSeconds(4));
    }

    private double refused(String stage) {
        return registry.get(MetricNames.BCRYPT_REFUSED).tag(MetricNames.TAG_STAGE, stage).counter().count();
    }

    private static Deadline far() {
        return Deadline.after(System.nanoTime(), FAR);
    }

    private boolean blockUntilReleased() {
        started.countDown();
        try {
            return release.await(10, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }
}
