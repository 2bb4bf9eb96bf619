package io.deviceidentity.overload;

import static io.deviceidentity.overload.Refusals.reasonOf;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;


/**
 * Who may hold the database lane's threads: known devices every one, other work its unreserved share, an import's
 * bulk step only while a thread stays free for requests.
 */
class DatabaseLaneSharesTest {

    private final DatabaseLanes lanes = new DatabaseLanes();
    private final Lane lane = lanes.withoutQueue(2);

    @AfterEach
    void stop() {
        lanes.close();
    }

    @Test
    void aBulkStepNeverTakesTheLastFreeThreadAndIsNotCountedAsARefusedRequest() throws Exception {
        CountDownLatch oneRunning = new CountDownLatch(1);
        CompletableFuture<Boolean> request = lane.run(DatabaseLanes.far(), () -> lanes.hold(oneRunning));
        assertTrue(oneRunning.await(5, TimeUnit.SECONDS));
        AtomicInteger ran = new AtomicInteger();

        CompletableFuture<Integer> bulk = lane.runBulk(ran::incrementAndGet);

        assertTrue(bulk.isCompletedExceptionally(), "one of two threads busy: the other stays free for requests");
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(bulk));
        assertEquals(0.0, lanes.refused(null, null));
        CountDownLatch secondRunning = new CountDownLatch(1);
        CompletableFuture<Boolean> another = lane.run(DatabaseLanes.far(), () -> lanes.hold(secondRunning));
        assertTrue(secondRunning.await(5, TimeUnit.SECONDS), "the free thread took a request");
        lanes.release.countDown();
        assertTrue(request.get(5, TimeUnit.SECONDS) && another.get(5, TimeUnit.SECONDS));
        assertEquals(0, ran.get());
    }

    @Test
    void aBulkStepRunsWhileAThreadStaysFreeAndRequestsStillGetThatThread() throws Exception {
        CountDownLatch bulkRunning = new CountDownLatch(1);
        CompletableFuture<Boolean> bulk = lane.runBulk(() -> lanes.hold(bulkRunning));
        assertTrue(bulkRunning.await(5, TimeUnit.SECONDS));

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(lane.runBulk(() -> true)), "one bulk step at a time here");
        assertEquals(7, lane.run(DatabaseLanes.far(), () -> 7).get(5, TimeUnit.SECONDS));
        lanes.release.countDown();
        assertTrue(bulk.get(5, TimeUnit.SECONDS));
    }

    @Test
    void aFloodOfOtherWorkFillsOnlyItsShareAndKnownDevicesStillGetTheReservedThreads() throws Exception {
        // Four threads, a quarter reserved, a short queue, on the test's clock: the flood (unknown client ids) may
        // hold three places, running or waiting; the fourth thread is the known fleet's whatever the flood does.
        Lane shared = lanes.start(4, Duration.ofMillis(25), 10, 0.25, lanes.now::get);
        CountDownLatch floodRunning = new CountDownLatch(3);
        List<CompletableFuture<Boolean>> flood = new ArrayList<>();
        for (int i = 0; i < 3; i++) {
            flood.add(shared.run(DatabaseLanes.far(), Share.OTHER, () -> lanes.hold(floodRunning)));
        }
        assertTrue(floodRunning.await(5, TimeUnit.SECONDS));

        for (int i = 0; i < 50; i++) {
            CompletableFuture<Integer> more = shared.run(DatabaseLanes.far(), Share.OTHER, () -> 1);
            assertEquals(UnavailableReason.OVERLOAD, reasonOf(more), "the flood's share is full: refused at once");
        }
        CompletableFuture<String> known = shared.run(DatabaseLanes.far(), Share.KNOWN, () -> "known");
        assertEquals("known", known.get(5, TimeUnit.SECONDS), "ran on the reserved thread, without waiting");
        assertEquals(50.0, lanes.refused("other", "share_full"), "the flood's refusals are counted as the flood's");
        assertEquals(0.0, lanes.refused("known", null), "and none of the known fleet's");

        lanes.release.countDown();
        for (CompletableFuture<Boolean> step : flood) {
            assertTrue(step.get(5, TimeUnit.SECONDS));
        }
        assertEquals(2, shared.run(DatabaseLanes.far(), Share.OTHER, () -> 2).get(5, TimeUnit.SECONDS),
                "the share is given back when the flood's steps finish");
    }

    @Test
    void knownWorkMayUseEveryThread() throws Exception {
        Lane shared = lanes.start(4, Duration.ZERO, 0, 0.25, lanes.now::get);
        CountDownLatch running = new CountDownLatch(4);
        List<CompletableFuture<Boolean>> known = new ArrayList<>();
        for (int i = 0; i < 4; i++) {
            known.add(shared.run(DatabaseLanes.far(), Share.KNOWN, () -> lanes.hold(running)));
        }

        assertTrue(running.await(5, TimeUnit.SECONDS), "all four threads ran known work");
        assertEquals(UnavailableReason.OVERLOAD, reasonOf(shared.run(DatabaseLanes.far(), Share.OTHER, () -> 1)));
        lanes.release.countDown();
        for (CompletableFuture<Boolean> step : known) {
            assertTrue(step.get(5, TimeUnit.SECONDS));
        }
    }

    @Test
    void theReservationIsRoundedUpAndNeverTakesEveryThread() {
        assertEquals(0, Partitions.reservedThreads(1, 0.25), "one thread cannot be split");
        assertEquals(1, Partitions.reservedThreads(2, 0.25));
        assertEquals(3, Partitions.reservedThreads(10, 0.25));
        assertEquals(9, Partitions.reservedThreads(10, 1.0));
        assertEquals(0, Partitions.reservedThreads(10, 0));
    }
}
