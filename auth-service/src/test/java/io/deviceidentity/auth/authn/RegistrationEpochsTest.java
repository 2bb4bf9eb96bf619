package io.deviceidentity.auth.authn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** The single flight of epoch reads, with reads the test completes by hand and a clock it moves. */
class RegistrationEpochsTest {

    private final List<CompletableFuture<long[]>> reads = new ArrayList<>();
    private final AtomicLong now = new AtomicLong(1_000);
    private final RegistrationEpochs epochs = new RegistrationEpochs(() -> {
        CompletableFuture<long[]> read = new CompletableFuture<>();
        reads.add(read);
        return read;
    }, now::get, new SimpleMeterRegistry());

    @Test
    void requestsThatArriveBeforeAReadStartsShareIt() {
        List<CompletionStage<long[]>> waiting = new ArrayList<>();
        for (int i = 0; i < 100; i++) {
            waiting.add(epochs.readStartedAfter(now.get()));
        }

        assertEquals(1, reads.size(), "one read for a hundred requests");
        reads.get(0).complete(new long[] {7});
        waiting.forEach(read -> assertEquals(7, read.toCompletableFuture().join()[0]));
    }

    @Test
    void aRequestArrivingDuringAReadWaitsForTheNextOneWhichAllLateArrivalsShare() {
        CompletionStage<long[]> early = epochs.readStartedAfter(now.get());
        now.addAndGet(5); // arrivals after the first read started: it may predate their registration
        List<CompletionStage<long[]>> late = new ArrayList<>();
        for (int i = 0; i < 50; i++) {
            late.add(epochs.readStartedAfter(now.get()));
        }
        assertEquals(1, reads.size(), "the next read waits for the current one: one in flight at a time");

        reads.get(0).complete(new long[] {1});

        assertEquals(1, early.toCompletableFuture().join()[0]);
        late.forEach(read -> assertFalse(read.toCompletableFuture().isDone(), "not answered by the older read"));
        assertEquals(2, reads.size(), "the next read started as the first ended");
        reads.get(1).complete(new long[] {2});
        late.forEach(read -> assertEquals(2, read.toCompletableFuture().join()[0]));
        assertSame(reads.get(1).join(), epochs.latest());
    }

    @Test
    void aFailedReadFailsItsWaitersAndTheNextRequestStartsAFreshOne() {
        CompletionStage<long[]> first = epochs.readStartedAfter(now.get());
        reads.get(0).completeExceptionally(new IllegalStateException("database down"));
        assertTrue(first.toCompletableFuture().isCompletedExceptionally());

        epochs.readStartedAfter(now.get());

        assertEquals(2, reads.size());
    }

    @Test
    void aRefreshStartsOneReadOnlyWhenTheLastFinishedOneStartedTooLongAgo() {
        epochs.refreshIfStartedBefore(now.get());
        epochs.refreshIfStartedBefore(now.get());
        assertEquals(1, reads.size(), "one in flight at a time");
        long firstStart = now.get();
        now.addAndGet(10);
        reads.get(0).complete(new long[] {3});
        assertEquals(firstStart, epochs.latestRead().startedAt(), "a read is as old as its start");

        epochs.refreshIfStartedBefore(firstStart);
        assertEquals(1, reads.size(), "the last read started late enough");

        epochs.refreshIfStartedBefore(firstStart + 1);
        assertEquals(2, reads.size());
        assertEquals(3, epochs.latestRead().epochs()[0], "until it finishes, the last finished read is the one");
    }
}
