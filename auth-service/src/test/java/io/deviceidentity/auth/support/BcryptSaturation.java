package io.deviceidentity.auth.support;

import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;

import io.deviceidentity.credentials.CheckCost;
import io.deviceidentity.overload.BcryptWork;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.Lane;

/** Occupies the bcrypt lane from a test, deterministically, instead of timing a burst. */
public final class BcryptSaturation {

    private BcryptSaturation() {
    }

    /**
     * Takes the bcrypt thread and as much of the queue as admission allows, until a submission is refused: from then
     * on, every request that needs bcrypt is refused too, until {@code release} is counted down.
     */
    public static List<CompletableFuture<Boolean>> saturate(@BcryptWork Lane bcrypt, CountDownLatch release) {
        List<CompletableFuture<Boolean>> occupied = new ArrayList<>();
        Deadline far = Deadline.after(System.nanoTime(), Duration.ofMinutes(1));
        CountDownLatch running = new CountDownLatch(1);
        try {
            occupied.add(bcrypt.submit(far, CheckCost.UNIT, holdUntil(release, running)));
            // The thread must hold the first task before the rest queue up, or a refusal could come from a queue
            // that the thread is about to shorten.
            assertTrue(running.await(30, TimeUnit.SECONDS), "the bcrypt thread never started");
            for (int i = 0; i < bcrypt.concurrency() + bcrypt.queueCapacity(); i++) {
                CompletableFuture<Boolean> task = bcrypt.submit(far, CheckCost.UNIT, holdUntil(release, new CountDownLatch(1)));
                if (task.isCompletedExceptionally()) {
                    return occupied;
                }
                occupied.add(task);
            }
            throw new AssertionError("bcrypt admitted more work than its threads and queue can hold");
        } catch (InterruptedException interrupted) {
            release.countDown();
            throw new AssertionError(interrupted);
        } catch (RuntimeException | AssertionError failure) {
            release.countDown(); // never leave the executor blocked for the tests that follow
            throw failure;
        }
    }

    /** Takes the (only) bcrypt thread alone, queueing nothing behind it; returns once the thread holds it. */
    public static CompletableFuture<Boolean> occupyThread(@BcryptWork Lane bcrypt, CountDownLatch release)
            throws InterruptedException {
        CountDownLatch running = new CountDownLatch(1);
        CompletableFuture<Boolean> task = bcrypt.submit(Deadline.after(System.nanoTime(), Duration.ofMinutes(1)), CheckCost.UNIT,
                holdUntil(release, running));
        assertTrue(running.await(30, TimeUnit.SECONDS), "the bcrypt thread never started");
        return task;
    }

    private static Lane.Step<Boolean> holdUntil(CountDownLatch release, CountDownLatch running) {
        return () -> {
            running.countDown();
            try {
                return release.await(1, TimeUnit.MINUTES);
            } catch (InterruptedException e) {
                Thread.currentThread().interrupt();
                return false;
            }
        };
    }
}
