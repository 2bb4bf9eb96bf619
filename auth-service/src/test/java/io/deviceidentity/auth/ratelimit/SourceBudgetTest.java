package io.deviceidentity.auth.ratelimit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.bucket4j.TimeMeter;

/** The per-address failure budget with its defaults (1000 failures, then 1000 a minute), on a clock the test moves. */
class SourceBudgetTest {

    private final AtomicLong nanos = new AtomicLong();
    private final SourceBudget budget = new SourceBudget(TestRateLimits.defaults(), new TimeMeter() {
        public long currentTimeNanos() {
            return nanos.get();
        }

        public boolean isWallClockBased() {
            return false;
        }
    });

    @Test
    void anAddressIsStoppedAfterItsBudgetOfFailuresAndOthersAreNot() {
        for (int i = 0; i < 999; i++) {
            budget.failed("203.0.113.9");
        }
        assertFalse(budget.exhausted("203.0.113.9"));
        budget.failed("203.0.113.9");

        assertTrue(budget.exhausted("203.0.113.9"));
        assertFalse(budget.exhausted("198.51.100.1"), "another address has its own budget");
    }

    @Test
    void aNatWhoseDevicesFailNowAndThenIsNeverStopped() {
        // 10 000 devices behind one address, one misconfigured device in a hundred failing once a minute: 100/min.
        for (int minute = 0; minute < 60; minute++) {
            for (int i = 0; i < 100; i++) {
                budget.failed("192.0.2.1");
            }
            assertFalse(budget.exhausted("192.0.2.1"));
            nanos.addAndGet(Duration.ofMinutes(1).toNanos());
        }
    }

    @Test
    void wrongPasswordsFromOneAddressStopItsBcryptAfterFiveAtOnceButNotItsReads() {
        for (int i = 0; i < 4; i++) {
            budget.guessed("203.0.113.5");
        }
        assertFalse(budget.guessesExhausted("203.0.113.5"));
        budget.guessed("203.0.113.5");

        assertTrue(budget.guessesExhausted("203.0.113.5"), "a spray from one address: no more hashes for now");
        assertFalse(budget.exhausted("203.0.113.5"), "its other failures' budget is untouched");
        nanos.addAndGet(Duration.ofSeconds(3).toNanos()); // 20 a minute: one back every 3 s
        assertFalse(budget.guessesExhausted("203.0.113.5"));
        budget.guessed("203.0.113.5");
        assertTrue(budget.guessesExhausted("203.0.113.5"));
        nanos.addAndGet(Duration.ofMinutes(1).toNanos());
        for (int i = 0; i < 5; i++) {
            assertFalse(budget.guessesExhausted("203.0.113.5"), "never more than five at once");
            budget.guessed("203.0.113.5");
        }
        assertTrue(budget.guessesExhausted("203.0.113.5"));
    }

    @Test
    void aFloodingAddressGetsItsBudgetBackSmoothly() {
        for (int i = 0; i < 5000; i++) {
            budget.failed("203.0.113.7");
        }
        assertTrue(budget.exhausted("203.0.113.7"));

        nanos.addAndGet(Duration.ofMillis(60).toNanos()); // 1000 a minute: one back every 60 ms

        assertFalse(budget.exhausted("203.0.113.7"));
    }
}
