package io.deviceidentity.overload;

import static io.deviceidentity.overload.Refusals.reasonOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.SQLException;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;


/**
 * Whose fault the database lane says a failure or refusal is: a database error is {@code backend_unavailable},
 * and while the database fails, a full lane's refusals are the database's too.
 */
class DatabaseRefusalAttributionTest {

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
}
