package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

/**
 * The timer costs nothing for a decision that is already made (in a storm nearly every answer), and still cuts
 * unfinished work at its deadline. No test here races the clock: a deadline is either an hour away or already past.
 */
class DeadlineTimerTest {

    private final DeadlineTimer timer = new DeadlineTimer();

    @AfterEach
    void stop() {
        timer.shutdown();
    }

    @Test
    void workAlreadyDecidedIsAnsweredAsItIsWithoutATimer() {
        CompletableFuture<String> refused = CompletableFuture.failedFuture(ServiceUnavailableException.overload("x"));
        CompletableFuture<String> allowed = CompletableFuture.completedFuture("allow");

        assertSame(refused, timer.bound(anHourAway(), refused));
        assertSame(allowed, timer.bound(anHourAway(), allowed));
        assertEquals(0, timer.pending());
    }

    @Test
    void unfinishedWorkHoldsATimerUntilItFinishes() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        CompletableFuture<String> answer = timer.bound(anHourAway(), work);
        assertEquals(1, timer.pending());

        work.complete("allow");

        assertEquals("allow", answer.get(30, TimeUnit.SECONDS));
        assertEquals(0, timer.pending());
    }

    @Test
    void unfinishedWorkPastItsDeadlineIsAnsweredDeadline() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        Deadline passed = Deadline.after(System.nanoTime() - Duration.ofSeconds(2).toNanos(), Duration.ofSeconds(1));

        ExecutionException cut = assertThrows(ExecutionException.class,
                () -> timer.bound(passed, work).get(30, TimeUnit.SECONDS));

        ServiceUnavailableException unavailable = assertInstanceOf(ServiceUnavailableException.class, cut.getCause());
        assertEquals(UnavailableReason.DEADLINE, unavailable.reason());
    }

    @Test
    void unfinishedWorkPastItsDeadlineIsAnsweredWhatKeptIt() throws Exception {
        CompletableFuture<String> work = new CompletableFuture<>();
        Deadline passed = Deadline.after(System.nanoTime() - Duration.ofSeconds(2).toNanos(), Duration.ofSeconds(1));

        ExecutionException cut = assertThrows(ExecutionException.class, () -> timer.bound(passed, work,
                () -> ServiceUnavailableException.backendUnavailable("the database does not answer", 1))
                .get(30, TimeUnit.SECONDS));

        ServiceUnavailableException unavailable = assertInstanceOf(ServiceUnavailableException.class, cut.getCause());
        assertEquals(UnavailableReason.BACKEND_UNAVAILABLE, unavailable.reason());
    }

    private static Deadline anHourAway() {
        return Deadline.after(System.nanoTime(), Duration.ofHours(1));
    }
}
