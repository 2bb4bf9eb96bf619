package io.deviceidentity.auth.writebehind;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

/**
 * The write-behind on its own, with sinks that record what they were given. Ordering between the caller and the
 * writer thread is made by latches the test holds, never by sleeping.
 */
class WriteBehindTest {

    private static final long WAIT_SECONDS = 30;

    @Test
    void aFullQueueRefusesTheWriteInsteadOfBlockingTheCaller() {
        WriteBehind<String> writes = WriteBehind.every("test", Duration.ofHours(1), 2, 10, batch -> true, () -> { });
        assertTrue(writes.offer("a"));
        assertTrue(writes.offer("b"));
        assertFalse(writes.offer("c"), "a third write does not fit in a queue of two");
        assertEquals(2, writes.queued());
    }

    @Test
    void writesGoOutInTheOrderQueuedInBatchesOfAtMostTheBatchSize() {
        List<List<Integer>> batches = new ArrayList<>();
        AtomicInteger rounds = new AtomicInteger();
        WriteBehind<Integer> writes = WriteBehind.every("test", Duration.ofHours(1), 100, 3, batch -> {
            batches.add(List.copyOf(batch));
            return true;
        }, rounds::incrementAndGet);
        for (int i = 1; i <= 7; i++) {
            writes.offer(i);
        }

        writes.flush();

        assertEquals(List.of(List.of(1, 2, 3), List.of(4, 5, 6), List.of(7)), batches);
        assertEquals(1, rounds.get(), "the round's housekeeping runs once, after its batches");
    }

    @Test
    void aFailedBatchEndsTheRoundAndWhatItKeptGoesFirstInTheNextEvenWhenTheQueueIsFull() {
        List<List<String>> written = new ArrayList<>();
        AtomicInteger failuresLeft = new AtomicInteger(1);
        List<WriteBehind<String>> self = new ArrayList<>();
        WriteBehind<String> writes = WriteBehind.every("test", Duration.ofHours(1), 2, 2, batch -> {
            if (failuresLeft.getAndDecrement() > 0) {
                batch.forEach(self.get(0)::keep);
                return false;
            }
            written.add(List.copyOf(batch));
            return true;
        }, () -> { });
        self.add(writes);
        writes.offer("kept-1");
        writes.offer("kept-2");

        writes.flush();
        assertTrue(written.isEmpty());
        assertTrue(writes.offer("new-1"), "what was kept does not take the queue's room");
        assertTrue(writes.offer("new-2"));
        writes.flush();

        assertEquals(List.of(List.of("kept-1", "kept-2"), List.of("new-1", "new-2")), written);
    }

    @Test
    void aDrainingWriterWritesAsSoonAsSomethingIsQueued() throws Exception {
        BlockingQueue<List<String>> written = new LinkedBlockingQueue<>();
        WriteBehind<String> writes = WriteBehind.draining("test", 10, 10, batch -> written.add(List.copyOf(batch)));
        try {
            writes.offer("one");
            assertEquals(List.of("one"), written.poll(WAIT_SECONDS, TimeUnit.SECONDS));
        } finally {
            writes.close();
        }
    }

    @Test
    void aSinkThatThrowsDoesNotStopTheWriter() throws Exception {
        BlockingQueue<String> written = new LinkedBlockingQueue<>();
        WriteBehind<String> writes = WriteBehind.draining("test", 10, 1, batch -> {
            if (batch.get(0).equals("bad")) {
                throw new IllegalStateException("the sink's own defect");
            }
            written.add(batch.get(0));
            return true;
        });
        try {
            writes.offer("bad");
            writes.offer("good");
            assertEquals("good", written.poll(WAIT_SECONDS, TimeUnit.SECONDS));
        } finally {
            writes.close();
        }
    }

    @Test
    void closingWritesWhatIsStillQueuedBeforeItReturns() throws Exception {
        CountDownLatch firstBatchStarted = new CountDownLatch(1);
        CountDownLatch releaseFirstBatch = new CountDownLatch(1);
        List<String> written = new java.util.concurrent.CopyOnWriteArrayList<>();
        WriteBehind<String> writes = WriteBehind.draining("test", 10, 10, batch -> {
            if (batch.contains("first")) {
                firstBatchStarted.countDown();
                await(releaseFirstBatch);
            }
            written.addAll(batch);
            return true;
        });
        writes.offer("first");
        assertTrue(firstBatchStarted.await(WAIT_SECONDS, TimeUnit.SECONDS));
        writes.offer("queued-at-shutdown");

        CompletableFuture<Void> closed = CompletableFuture.runAsync(writes::close);
        releaseFirstBatch.countDown();
        closed.get(WAIT_SECONDS, TimeUnit.SECONDS);

        assertEquals(List.of("first", "queued-at-shutdown"), written);
        assertEquals(0, writes.queued());
    }

    @Test
    void closingStopsAtTheFirstFailedBatchSoADeadDatabaseCannotHoldTheShutdown() {
        AtomicInteger batches = new AtomicInteger();
        WriteBehind<Integer> writes = WriteBehind.every("test", Duration.ofHours(1), 100, 1, batch -> {
            batches.incrementAndGet();
            return false;
        }, () -> { });
        for (int i = 0; i < 5; i++) {
            writes.offer(i);
        }

        writes.close();

        assertEquals(1, batches.get());
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(WAIT_SECONDS, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
