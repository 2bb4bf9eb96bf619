package io.deviceidentity.overload;

import static io.deviceidentity.overload.Refusals.reasonOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.lang.reflect.Proxy;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import javax.sql.DataSource;

import io.deviceidentity.credentials.StandbyReads;

import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;


/**
 * Whose fault the database lane says a failure or refusal is: a database error is {@code backend_unavailable},
 * and while the database fails or holds the threads, a full lane's refusals are the database's too.
 */
class DatabaseRefusalAttributionTest {

    /** The paths a step's connection comes from: the primary's pool and a standby's. */
    private static final Object PRIMARY = "primary";
    private static final Object STANDBY = "standby";

    private final DatabaseLanes lanes = new DatabaseLanes();
    private final Lane lane = lanes.withoutQueue(2);

    @AfterEach
    void stop() {
        lanes.close();
    }

    @Test
    void aDatabaseFailureComesBackAsBackendUnavailable() {
        CompletableFuture<Object> failed = lane.run(DatabaseLanes.far(), () -> {
            throw new SQLException("connection refused", "08001");
        });

        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(failed));
    }

    @Test
    void whileTheDatabaseFailsARequestFindingEveryThreadBusyIsToldItIsTheDatabaseUntilAStepSucceeds() throws Exception {
        CompletableFuture<Object> failed = lane.run(DatabaseLanes.far(), () -> {
            throw new SQLException("connection refused", "08001");
        });
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(failed));
        CountDownLatch bothRunning = new CountDownLatch(2);
        CompletableFuture<Boolean> first = lane.run(DatabaseLanes.far(), () -> lanes.hold(bothRunning));
        CompletableFuture<Boolean> second = lane.run(DatabaseLanes.far(), () -> lanes.hold(bothRunning));
        assertTrue(bothRunning.await(5, TimeUnit.SECONDS));

        CompletableFuture<Integer> refusedWhileFailing = lane.run(DatabaseLanes.far(), () -> 1);

        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(refusedWhileFailing),
                "the threads are held by a database that does not answer: not this service's overload");
        assertEquals(1.0, lanes.refused("known", "full"), "still counted as the lane's refusal");
        lanes.release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS));
        CountDownLatch again = new CountDownLatch(2);
        CountDownLatch stillHeld = new CountDownLatch(1);
        CompletableFuture<Boolean> third = lane.run(DatabaseLanes.far(), () -> DatabaseLanes.holdUntil(again, stillHeld));
        CompletableFuture<Boolean> fourth = lane.run(DatabaseLanes.far(), () -> DatabaseLanes.holdUntil(again, stillHeld));
        assertTrue(again.await(5, TimeUnit.SECONDS));
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(lane.run(DatabaseLanes.far(), () -> 1)),
                "a database that answered again makes a full lane overload once more");
        stillHeld.countDown();
        assertTrue(third.get(5, TimeUnit.SECONDS) && fourth.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aLaneStaysTheDatabasesWhileStepsBegunDuringTheOutageStillWaitThoughTheNewPrimaryAnswers() throws Exception {
        Lane wide = lanes.start(4, Duration.ZERO, 0, 0, lanes.now::get);
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(wide.run(DatabaseLanes.far(), () -> {
            throw new SQLException("connection refused", "08001");
        })));
        CountDownLatch onTheLostPrimary = new CountDownLatch(2);
        CompletableFuture<Boolean> first = wide.run(DatabaseLanes.far(), () -> withConnection(onTheLostPrimary));
        CompletableFuture<Boolean> second = wide.run(DatabaseLanes.far(), () -> withConnection(onTheLostPrimary));
        assertTrue(onTheLostPrimary.await(5, TimeUnit.SECONDS));
        lanes.now.addAndGet(DatabaseAttribution.STALL_NANOS);
        assertEquals(1, wide.run(DatabaseLanes.far(), () -> answeredOn(PRIMARY)).get(5, TimeUnit.SECONDS),
                "the new primary answers a step while two threads are free");
        CountDownLatch fresh = new CountDownLatch(2);
        CountDownLatch freshDone = new CountDownLatch(1);
        CompletableFuture<Boolean> third = wide.run(DatabaseLanes.far(), () -> DatabaseLanes.holdUntil(fresh, freshDone));
        CompletableFuture<Boolean> fourth = wide.run(DatabaseLanes.far(), () -> DatabaseLanes.holdUntil(fresh, freshDone));
        assertTrue(fresh.await(5, TimeUnit.SECONDS));

        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(wide.run(DatabaseLanes.far(), () -> 1)),
                "two threads still wait on connections the outage left: the lane is short of them by its doing");
        lanes.release.countDown();
        freshDone.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS)
                && third.get(5, TimeUnit.SECONDS) && fourth.get(5, TimeUnit.SECONDS));
        assertEquals(1, wide.run(DatabaseLanes.far(), () -> answeredOn(PRIMARY)).get(5, TimeUnit.SECONDS));
        CountDownLatch full = new CountDownLatch(4);
        CountDownLatch fullDone = new CountDownLatch(1);
        List<CompletableFuture<Boolean>> busy = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            busy.add(wide.run(DatabaseLanes.far(), () -> DatabaseLanes.holdUntil(full, fullDone)));
        }
        assertTrue(full.await(5, TimeUnit.SECONDS));
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(wide.run(DatabaseLanes.far(), () -> 1)),
                "nothing left of the outage: a full lane is this service's overload again");
        fullDone.countDown();
        for (CompletableFuture<Boolean> step : busy) {
            assertTrue(step.get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void aLaneHeldByStepsTheDatabaseDoesNotAnswerRefusesAsTheDatabaseBeforeAnyStepHasFailed() throws Exception {
        // Two threads, no queue, on the test's clock: both steps hang on a database that went silent (a killed
        // primary: the driver gives up only after its socket timeout), and requests keep coming.
        Lane silent = lanes.start(2, Duration.ZERO, 0, 0, lanes.now::get);
        CountDownLatch bothRunning = new CountDownLatch(2);
        CompletableFuture<Boolean> first = silent.run(DatabaseLanes.far(), () -> withConnection(bothRunning));
        CompletableFuture<Boolean> second = silent.run(DatabaseLanes.far(), () -> withConnection(bothRunning));
        assertTrue(bothRunning.await(5, TimeUnit.SECONDS));

        lanes.now.addAndGet(DatabaseAttribution.STALL_NANOS - 1);
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(silent.run(DatabaseLanes.far(), () -> 1)),
                "steps that have run for less than a stall: this service's overload");
        assertEquals(UnavailableReason.DEADLINE, silent.expired().reason());
        lanes.now.addAndGet(1);
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(silent.run(DatabaseLanes.far(), () -> 1)),
                "every thread held by a database that does not answer: the database's doing");
        assertEquals(2.0, lanes.refused("known", "full"), "both still counted as the lane's refusals");
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, silent.expired().reason(),
                "a request whose deadline passes meanwhile is told it was the database");

        lanes.release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS));
        CountDownLatch again = new CountDownLatch(2);
        CountDownLatch stillHeld = new CountDownLatch(1);
        CompletableFuture<Boolean> third = silent.run(DatabaseLanes.far(), () -> DatabaseLanes.holdUntil(again, stillHeld));
        CompletableFuture<Boolean> fourth = silent.run(DatabaseLanes.far(), () -> DatabaseLanes.holdUntil(again, stillHeld));
        assertTrue(again.await(5, TimeUnit.SECONDS));
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(silent.run(DatabaseLanes.far(), () -> 1)),
                "fresh steps in every thread: overload again");
        assertEquals(UnavailableReason.DEADLINE, silent.expired().reason(), "and a passed deadline is a deadline");
        stillHeld.countDown();
        assertTrue(third.get(5, TimeUnit.SECONDS) && fourth.get(5, TimeUnit.SECONDS));
    }

    @Test
    void theRefusalsWhileTheLaneDrainsTheBacklogOfAnOutageNameTheDatabase() throws Exception {
        Lane queued = lanes.queued(Duration.ofMillis(25));
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(queued.run(DatabaseLanes.far(), () -> {
            throw new SQLException("connection refused", "08001");
        })));
        // The database answers again; the devices that retried meanwhile fill the thread and the queue.
        CompletableFuture<Boolean> first = lanes.occupyTheThread(queued);
        CountDownLatch waiterRunning = new CountDownLatch(1);
        CountDownLatch waiterDone = new CountDownLatch(1);
        CompletableFuture<Boolean> waiter = queued.run(DatabaseLanes.far(), () -> DatabaseLanes.holdUntil(waiterRunning, waiterDone));
        CompletableFuture<Integer> behind = queued.run(DatabaseLanes.far(), () -> 1);

        lanes.release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS), "a step succeeded, with others still waiting");
        assertTrue(waiterRunning.await(5, TimeUnit.SECONDS));
        lanes.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(30));
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(queued.run(DatabaseLanes.far(), () -> 1)),
                "the backlog the outage built is still draining: the database's doing");

        waiterDone.countDown();
        assertTrue(waiter.get(5, TimeUnit.SECONDS));
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(behind),
                "waited past the allowance in the backlog: the database's doing too");
        assertEquals(1, queued.run(DatabaseLanes.far(), () -> 1).get(5, TimeUnit.SECONDS), "nothing waits now, and a step succeeds");
        CountDownLatch lastRunning = new CountDownLatch(1);
        CountDownLatch lastDone = new CountDownLatch(1);
        CompletableFuture<Boolean> last = queued.run(DatabaseLanes.far(), () -> DatabaseLanes.holdUntil(lastRunning, lastDone));
        assertTrue(lastRunning.await(5, TimeUnit.SECONDS));
        lanes.now.addAndGet(TimeUnit.MILLISECONDS.toNanos(30));
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(queued.run(DatabaseLanes.far(), () -> 1)),
                "drained and answering: a full lane is this service's overload again");
        lastDone.countDown();
        assertTrue(last.get(5, TimeUnit.SECONDS));
    }

    @Test
    void stepsWaitingForTheirConnectionsCountAsHeldByTheDatabaseOnlyAfterTheAcquisitionAllowance() throws Exception {
        // A burst that grows the pool: each new connection is a TLS handshake and a SCRAM exchange, slow on a busy CPU.
        Lane growing = lanes.start(2, Duration.ZERO, 0, 0, lanes.now::get);
        CountDownLatch bothRunning = new CountDownLatch(2);
        CompletableFuture<Boolean> first = growing.run(DatabaseLanes.far(), () -> waitingForConnection(bothRunning));
        CompletableFuture<Boolean> second = growing.run(DatabaseLanes.far(), () -> waitingForConnection(bothRunning));
        assertTrue(bothRunning.await(5, TimeUnit.SECONDS));

        lanes.now.addAndGet(DatabaseAttribution.ACQUIRING_STALL_NANOS - 1);
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(growing.run(DatabaseLanes.far(), () -> 1)));
        assertEquals(UnavailableReason.DEADLINE, growing.expired().reason());

        lanes.now.addAndGet(1);
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(growing.run(DatabaseLanes.far(), () -> 1)),
                "a connection that long in coming waits on the database (the pool validating it through PgBouncer)");
        lanes.release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS));
    }

    @Test
    void stepsWaitingOnAPoolThatOpensNoMoreConnectionsCountAsHeldByTheDatabaseAfterAStall() throws Exception {
        // Every connection open: the pool validates an idle one through PgBouncer, which holds the check while the
        // primary is gone, as it would hold a statement.
        Lane full = lanes.start(2, Duration.ZERO, 0, 0, lanes.now::get);
        CountDownLatch bothRunning = new CountDownLatch(2);
        CompletableFuture<Boolean> first = full.run(DatabaseLanes.far(), () -> waitingOnAFullPool(bothRunning));
        CompletableFuture<Boolean> second = full.run(DatabaseLanes.far(), () -> waitingOnAFullPool(bothRunning));
        assertTrue(bothRunning.await(5, TimeUnit.SECONDS));

        lanes.now.addAndGet(DatabaseAttribution.STALL_NANOS - 1);
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(full.run(DatabaseLanes.far(), () -> 1)));
        lanes.now.addAndGet(1);
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(full.run(DatabaseLanes.far(), () -> 1)),
                "no connection being opened: the wait is the database's from the first stall on");
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, full.expired().reason());
        lanes.release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aCallThatRanOutItsTimeWaitingOnTheDatabaseNamesTheDatabaseAndOneThatDidNotWaitIsADeadline() {
        Lane timed = lanes.start(2, Duration.ZERO, 0, 0, lanes.now::get);
        assertEquals(UnavailableReason.DEADLINE, reasonOf(timed.run(DatabaseLanes.far(), () -> {
            DatabaseAttribution.connectionTaken(PRIMARY);
            throw new TimeoutException("the guard's timeout");
        })), "a call that timed out without a stall on the database: the request's time was spent elsewhere");

        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(timed.run(DatabaseLanes.far(), () -> {
            DatabaseAttribution.connectionTaken(PRIMARY);
            lanes.now.addAndGet(DatabaseAttribution.STALL_NANOS);
            throw new TimeoutException("the guard's timeout");
        })), "its statement (or the validation of its connection) never answered: the database's doing");
        CountDownLatch bothRunning = new CountDownLatch(2);
        CompletableFuture<Boolean> first = timed.run(DatabaseLanes.far(), () -> lanes.hold(bothRunning));
        CompletableFuture<Boolean> second = timed.run(DatabaseLanes.far(), () -> lanes.hold(bothRunning));
        assertTrue(awaitQuietly(bothRunning));
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(timed.run(DatabaseLanes.far(), () -> 1)),
                "and the lane now knows the database is failing");
        lanes.release.countDown();
        assertTrue(first.join() && second.join());
    }

    private static boolean awaitQuietly(CountDownLatch latch) {
        try {
            return latch.await(5, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return false;
        }
    }

    @Test
    void aRefusalWhileTheStepsHaveWaitedFarLongerThanAReadButLessThanAStallIsAnsweredOnceItsCauseIsClear()
            throws Exception {
        lanes.keepLater();
        Lane silent = lanes.start(2, Duration.ZERO, 0, 0, lanes.now::get);
        CountDownLatch bothRunning = new CountDownLatch(2);
        CompletableFuture<Boolean> first = silent.run(DatabaseLanes.far(), () -> withConnection(bothRunning));
        CompletableFuture<Boolean> second = silent.run(DatabaseLanes.far(), () -> withConnection(bothRunning));
        assertTrue(bothRunning.await(5, TimeUnit.SECONDS));

        lanes.now.addAndGet(DatabaseAttribution.UNCLEAR_FROM_NANOS - 1);
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(silent.run(DatabaseLanes.far(), () -> 1)),
                "steps that have waited about as long as reads take: this service's overload, told at once");
        lanes.now.addAndGet(1);
        CompletableFuture<Integer> unclear = silent.run(DatabaseLanes.far(), () -> 1);
        assertFalse(unclear.isDone(), "a database gone silent looks like this for its first tenth of a second");
        assertEquals(2.0, lanes.refused("known", null), "the unclear refusal is counted at once, like the first");

        lanes.now.addAndGet(DatabaseAttribution.STALL_NANOS - DatabaseAttribution.UNCLEAR_FROM_NANOS);
        assertEquals(1, lanes.runLater());
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(unclear),
                "the same steps still waiting a stall later: the database's doing");
        lanes.release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aRefusalBesideLongStepsWhileOtherStepsKeepFinishingIsToldAtOnce() throws Exception {
        lanes.keepLater();
        Lane busy = lanes.start(3, Duration.ZERO, 0, 0, lanes.now::get);
        CountDownLatch twoRunning = new CountDownLatch(2);
        CompletableFuture<Boolean> first = busy.run(DatabaseLanes.far(), () -> withConnection(twoRunning));
        CompletableFuture<Boolean> second = busy.run(DatabaseLanes.far(), () -> withConnection(twoRunning));
        assertTrue(twoRunning.await(5, TimeUnit.SECONDS));
        lanes.now.addAndGet(DatabaseAttribution.STALL_NANOS / 2);
        assertEquals(1, busy.run(DatabaseLanes.far(), () -> answeredOn(PRIMARY)).get(5, TimeUnit.SECONDS),
                "a step finishes beside them, on the same path");
        CountDownLatch thirdRunning = new CountDownLatch(1);
        CompletableFuture<Boolean> third = busy.run(DatabaseLanes.far(), () -> lanes.hold(thirdRunning));
        assertTrue(thirdRunning.await(5, TimeUnit.SECONDS));

        CompletableFuture<Integer> refused = busy.run(DatabaseLanes.far(), () -> 1);
        assertTrue(refused.isDone(), "steps still finishing: a busy lane, not a silent database, told at once");
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(refused));
        lanes.release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS) && third.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aRefusalWhileAFewStepsWaitOnAPathThatAnswersNoneAndAnotherPathKeepsAnsweringNamesTheDatabase()
            throws Exception {
        lanes.keepLater();
        Lane split = lanes.start(4, Duration.ZERO, 0, 0, lanes.now::get);
        CountDownLatch onThePrimary = new CountDownLatch(2);
        CompletableFuture<Boolean> first = split.run(DatabaseLanes.far(), () -> withConnectionOn(PRIMARY, onThePrimary));
        CompletableFuture<Boolean> second = split.run(DatabaseLanes.far(), () -> withConnectionOn(PRIMARY, onThePrimary));
        assertTrue(onThePrimary.await(5, TimeUnit.SECONDS));
        lanes.now.addAndGet(DatabaseAttribution.STALL_NANOS / 2);
        assertEquals(1, split.run(DatabaseLanes.far(), () -> answeredOn(STANDBY)).get(5, TimeUnit.SECONDS),
                "the standby answers a read beside them");
        CountDownLatch onTheStandby = new CountDownLatch(2);
        CompletableFuture<Boolean> third = split.run(DatabaseLanes.far(), () -> withConnectionOn(STANDBY, onTheStandby));
        CompletableFuture<Boolean> fourth = split.run(DatabaseLanes.far(), () -> withConnectionOn(STANDBY, onTheStandby));
        assertTrue(onTheStandby.await(5, TimeUnit.SECONDS));

        CompletableFuture<Integer> refused = split.run(DatabaseLanes.far(), () -> 1);
        assertFalse(refused.isDone(), "half the threads on a primary that has answered neither of them: not yet clear");
        lanes.now.addAndGet(DatabaseAttribution.STALL_NANOS / 2);
        assertEquals(1, lanes.runLater());
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(refused),
                "a stall later the primary has still answered none: the threads it holds are what the lane lacks");
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(split.run(DatabaseLanes.far(), () -> 1)));
        lanes.release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS)
                && third.get(5, TimeUnit.SECONDS) && fourth.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aRefusalWhoseStepsFinishBeforeTheyHaveWaitedAStallIsThisServicesOverload() throws Exception {
        lanes.keepLater();
        Lane slow = lanes.start(2, Duration.ZERO, 0, 0, lanes.now::get);
        CountDownLatch bothRunning = new CountDownLatch(2);
        CountDownLatch answered = new CountDownLatch(1);
        CompletableFuture<Boolean> first = slow.run(DatabaseLanes.far(), () -> withConnectionUntil(bothRunning, answered));
        CompletableFuture<Boolean> second = slow.run(DatabaseLanes.far(), () -> withConnectionUntil(bothRunning, answered));
        assertTrue(bothRunning.await(5, TimeUnit.SECONDS));
        lanes.now.addAndGet(DatabaseAttribution.STALL_NANOS / 2);
        CompletableFuture<Integer> unclear = slow.run(DatabaseLanes.far(), () -> 1);
        assertFalse(unclear.isDone());

        answered.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS));
        lanes.now.addAndGet(DatabaseAttribution.STALL_NANOS / 2);
        assertEquals(1, lanes.runLater());
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(unclear),
                "the database answered them within a stall: slow for a moment, not gone");
    }

    /** A step that has its pooled connection and waits on the database until {@code done}. */
    private static boolean withConnectionUntil(CountDownLatch running, CountDownLatch done) {
        DatabaseAttribution.connectionTaken(PRIMARY);
        return DatabaseLanes.holdUntil(running, done);
    }

    @Test
    void stepsWaitingOnTheStandbyCountAsWaitingOnTheDatabase() throws Exception {
        CountDownLatch asked = new CountDownLatch(2);
        DataSource silentStandby = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    asked.countDown();
                    lanes.release.await(10, TimeUnit.SECONDS);
                    throw new SQLException("the standby went away", "08006");
                });
        StandbyReads standby = new StandbyReads(silentStandby, lanes.registry);
        Lane reads = lanes.start(2, Duration.ZERO, 0, 0, lanes.now::get);
        CompletableFuture<Boolean> first = reads.run(DatabaseLanes.far(), () -> standby.find(null, "d", false).isEmpty());
        CompletableFuture<Boolean> second = reads.run(DatabaseLanes.far(), () -> standby.find(null, "d", false).isEmpty());
        assertTrue(asked.await(5, TimeUnit.SECONDS));

        lanes.now.addAndGet(DatabaseAttribution.ACQUIRING_STALL_NANOS);
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, reasonOf(reads.run(DatabaseLanes.far(), () -> 1)),
                "both threads wait on the standby: on the database, not on this service");
        lanes.release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS), "both fell back to the primary");
    }

    /** A step that waits for its pooled connection, from a pool still opening connections, until released. */
    private boolean waitingForConnection(CountDownLatch running) {
        DatabaseAttribution.connectionWanted(false, PRIMARY);
        return lanes.hold(running);
    }

    /** A step that waits for its pooled connection, from a pool with every connection open, until released. */
    private boolean waitingOnAFullPool(CountDownLatch running) {
        DatabaseAttribution.connectionWanted(true, PRIMARY);
        return lanes.hold(running);
    }

    /** A step that has its pooled connection and waits on the database until released. */
    private boolean withConnection(CountDownLatch running) {
        return withConnectionOn(PRIMARY, running);
    }

    /** A step that has its connection from {@code path} and waits on the database until released. */
    private boolean withConnectionOn(Object path, CountDownLatch running) {
        DatabaseAttribution.connectionTaken(path);
        return lanes.hold(running);
    }

    /** A step that has its connection from {@code path} and is answered at once. */
    private static int answeredOn(Object path) {
        DatabaseAttribution.connectionTaken(path);
        return 1;
    }

    @Test
    void aConnectionThatNeverCameIsTheDatabasesDoingOnlyWhileTheDatabaseHoldsTheLane() throws Exception {
        DataSource exhausted = (DataSource) Proxy.newProxyInstance(getClass().getClassLoader(),
                new Class<?>[] {DataSource.class}, (proxy, method, args) -> {
                    throw new SQLException("Sorry, acquisition timeout!");
                });
        Lane lane3 = lanes.start(3, Duration.ZERO, 0, 0, lanes.now::get);
        assertEquals(UnavailableReason.OVERLOAD,
                reasonOf(lane3.run(DatabaseLanes.far(), () -> PooledConnections.take(exhausted))),
                "a healthy database: the pool was too small for this service's burst");

        CountDownLatch twoRunning = new CountDownLatch(2);
        CompletableFuture<Boolean> first = lane3.run(DatabaseLanes.far(), () -> withConnection(twoRunning));
        CompletableFuture<Boolean> second = lane3.run(DatabaseLanes.far(), () -> withConnection(twoRunning));
        assertTrue(twoRunning.await(5, TimeUnit.SECONDS));
        lanes.now.addAndGet(DatabaseAttribution.STALL_NANOS);

        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE,
                reasonOf(lane3.run(DatabaseLanes.far(), () -> PooledConnections.take(exhausted))),
                "two of three threads held by a database that does not answer: so are the connections");
        lanes.release.countDown();
        assertTrue(first.get(5, TimeUnit.SECONDS) && second.get(5, TimeUnit.SECONDS));
    }
}
