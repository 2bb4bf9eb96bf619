package io.deviceidentity.registration.passwords;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.deviceidentity.credentials.CheckCost;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.DeadlineTimer;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.overload.Lanes;
import io.deviceidentity.overload.OverloadConfig;
import io.deviceidentity.overload.ServiceUnavailableException;
import io.deviceidentity.overload.UnavailableReason;
import io.deviceidentity.registration.support.ProductionConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * registration-service's bcrypt admission as it ships (its application.properties, not the test profile's long
 * waits), on a virtual clock for the waiting-time rule: a provisioning script's burst of 50 concurrent registrations,
 * whose hashes fit the deadline, is admitted whole, also once the queue has stood for an interval (where
 * auth-service's rule would admit only two hash times of waiting); and a registration that could not finish before
 * its deadline is still refused at once. Two threads, 80 ms per cost-10 hash (the configured estimate), deadline 4 s.
 */
class RegistrationBurstAdmissionTest {

    private static final double ONE_HASH = CheckCost.bcrypt(10);

    private final AtomicLong now = new AtomicLong();
    private final CountDownLatch started = new CountDownLatch(2);
    private final CountDownLatch release = new CountDownLatch(1);
    private OverloadConfig config;
    private Lane lane;

    @BeforeEach
    void start() {
        config = ProductionConfig.mapping(OverloadConfig.class, Map.of("IDENTITY_OVERLOAD_BCRYPT_CONCURRENCY", "2",
                "IDENTITY_OVERLOAD_BCRYPT_IDLE_PRIORITY", "false"));
        lane = Lanes.bcrypt(config, new SimpleMeterRegistry(), new DeadlineTimer(), now::get);
    }

    @AfterEach
    void stop() {
        release.countDown();
        lane.shutdown();
    }

    @Test
    void fiftyConcurrentRegistrationsThatFitTheDeadlineAreAllAdmittedAlsoOnceTheQueueStands() throws Exception {
        List<CompletableFuture<Boolean>> burst = new ArrayList<>(occupyBothThreads());
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(150)); // every thread busy for more than an interval: it stands

        for (int i = 0; i < 48; i++) {
            // 48 waiting behind 2 running: the last expects (49 + 1) x 80 ms / 2 = 2 s of waiting, then its hash.
            CompletableFuture<Boolean> registration = lane.submit(fullDeadline(), ONE_HASH, () -> true);
            int number = i + 3;
            assertFalse(registration.isCompletedExceptionally(), () -> "registration " + number + " of 50 was refused: "
                    + refusal(registration).getMessage());
            burst.add(registration);
        }
        release.countDown();

        for (CompletableFuture<Boolean> registration : burst) {
            assertTrue(registration.get(10, TimeUnit.SECONDS));
        }
    }

    @Test
    void aRegistrationThatCouldNotFinishBeforeItsDeadlineIsStillRefusedAtOnce() {
        occupyBothThreads();
        now.addAndGet(TimeUnit.MILLISECONDS.toNanos(150));
        for (int i = 0; i < 48; i++) {
            lane.submit(fullDeadline(), ONE_HASH, () -> true);
        }

        // 50 ahead: about 2 s of waiting, then 80 ms. A request with 1.5 s of its deadline left cannot make it.
        long arrived = System.nanoTime() - Duration.ofMillis(2500).toNanos();
        CompletableFuture<Boolean> late = lane.submit(Deadline.after(arrived, config.deadline()), ONE_HASH,
                () -> true);
        assertEquals(UnavailableReason.OVERLOAD, refusal(late).reason());
        assertTrue(refusal(late).getMessage().contains("would not finish before its deadline"),
                refusal(late).getMessage());

        // With its whole deadline ahead, the same request fits; the queue then admits waits up to max-wait (3 s:
        // room for a hash and the write before 4 s), so the 75th waiting (76 ahead x 80 ms / 2 = 3.04 s) is refused.
        int admitted = 48;
        CompletableFuture<Boolean> next;
        while (!(next = lane.submit(fullDeadline(), ONE_HASH, () -> true)).isCompletedExceptionally()) {
            admitted++;
        }
        assertEquals(74, admitted, "waiting registrations admitted behind the two running");
        assertEquals(UnavailableReason.OVERLOAD, refusal(next).reason());
    }

    private List<CompletableFuture<Boolean>> occupyBothThreads() {
        List<CompletableFuture<Boolean>> running = new ArrayList<>();
        for (int i = 0; i < 2; i++) {
            running.add(lane.submit(fullDeadline(), ONE_HASH, () -> {
                started.countDown();
                await(release);
                return true;
            }));
        }
        await(started);
        return running;
    }

    private Deadline fullDeadline() {
        return Deadline.after(System.nanoTime(), config.deadline());
    }

    private static ServiceUnavailableException refusal(CompletableFuture<?> future) {
        try {
            future.join();
            return null;
        } catch (CompletionException e) {
            return (ServiceUnavailableException) e.getCause();
        }
    }

    private static void await(CountDownLatch latch) {
        try {
            assertTrue(latch.await(10, TimeUnit.SECONDS));
        } catch (InterruptedException e) {
            throw new AssertionError(e);
        }
    }
}
