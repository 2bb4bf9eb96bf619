package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.OptionalInt;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

class BcryptExecutorTest {

    private final CountDownLatch started = new CountDownLatch(1);
    private final CountDownLatch release = new CountDownLatch(1);
    private BcryptExecutor executor;

    @AfterEach
    void stop() {
        release.countDown();
        if (executor != null) {
            executor.shutdown();
        }
    }

    @Test
    void queueDefaultsToWhatCanFinishWithinTheDeadline() {
        assertEquals(100, BcryptExecutor.derivedQueue(Duration.ofSeconds(4).toNanos(),
                Duration.ofMillis(80).toNanos(), 2));
        executor = new BcryptExecutor(config(Duration.ofSeconds(4), 2, OptionalInt.empty()), new SimpleMeterRegistry(), new DeadlineTimer());
        assertEquals(2, executor.concurrency());
        assertEquals(100, executor.queueCapacity());
    }

    @Test
    void refusesWorkAtOnceWhenTheQueueIsFull() throws Exception {
        executor = new BcryptExecutor(config(Duration.ofSeconds(30), 1, OptionalInt.of(2)), new SimpleMeterRegistry(), new DeadlineTimer());
        Deadline deadline = Deadline.after(System.nanoTime(), Duration.ofSeconds(30));
        CompletableFuture<Boolean> running = executor.submit(deadline, this::blockUntilReleased);
        assertTrue(started.await(5, TimeUnit.SECONDS));
        CompletableFuture<Boolean> queued1 = executor.submit(deadline, () -> true);
        CompletableFuture<Boolean> queued2 = executor.submit(deadline, () -> true);

        CompletableFuture<Boolean> refused = executor.submit(deadline, () -> true);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(refused));
        release.countDown();
        assertTrue(running.get(5, TimeUnit.SECONDS));
        assertTrue(queued1.get(5, TimeUnit.SECONDS));
        assertTrue(queued2.get(5, TimeUnit.SECONDS));
    }

    @Test
    void refusesWorkAtAdmissionThatCouldNotFinishBeforeItsDeadline() {
        // One hash is expected to take 80 ms; a 50 ms deadline cannot be met even with an idle executor.
        executor = new BcryptExecutor(config(Duration.ofMillis(50), 1, OptionalInt.of(10)), new SimpleMeterRegistry(), new DeadlineTimer());
        AtomicInteger hashed = new AtomicInteger();

        CompletableFuture<Integer> refused = executor.submit(Deadline.after(System.nanoTime(), Duration.ofMillis(50)),
                hashed::incrementAndGet);

        assertEquals(UnavailableReason.OVERLOAD, reasonOf(refused));
        assertEquals(0, hashed.get());
    }

    @Test
    void answersDeadlineWhenTheDeadlinePassesAndNeverStartsTheQueuedWork() throws Exception {
        executor = new BcryptExecutor(config(Duration.ofSeconds(30), 1, OptionalInt.of(10)), new SimpleMeterRegistry(), new DeadlineTimer());
        executor.submit(Deadline.after(System.nanoTime(), Duration.ofSeconds(30)), this::blockUntilReleased);
        AtomicInteger hashed = new AtomicInteger();

        CompletableFuture<Integer> late = executor.submit(Deadline.after(System.nanoTime(), Duration.ofMillis(300)),
                hashed::incrementAndGet);

        assertEquals(UnavailableReason.DEADLINE, reasonOf(late));
        release.countDown();
        // The only thread is free again; the expired task must have been dropped, not run.
        assertTrue(executor.submit(Deadline.after(System.nanoTime(), Duration.ofSeconds(30)), () -> true)
                .get(5, TimeUnit.SECONDS));
        assertEquals(0, hashed.get());
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

    private static UnavailableReason reasonOf(CompletableFuture<?> future) {
        try {
            future.get(5, TimeUnit.SECONDS);
        } catch (ExecutionException failed) {
            return assertInstanceOf(ServiceUnavailableException.class, failed.getCause()).reason();
        } catch (Exception other) {
            throw new AssertionError(other);
        }
        throw new AssertionError("expected a refusal, got an answer");
    }

    private static OverloadConfig config(Duration deadline, int concurrency, OptionalInt queue) {
        return new OverloadConfig() {
            public Duration deadline() {
                return deadline;
            }

            public Bcrypt bcrypt() {
                return new Bcrypt() {
                    public OptionalInt concurrency() {
                        return OptionalInt.of(concurrency);
                    }

                    public OptionalInt queue() {
                        return queue;
                    }

                    public Duration expectedDuration() {
                        return Duration.ofMillis(80);
                    }
                };
            }
        };
    }
}
