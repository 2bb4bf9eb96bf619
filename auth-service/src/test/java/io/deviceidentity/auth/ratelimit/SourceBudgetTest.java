package io.deviceidentity.auth.ratelimit;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.github.bucket4j.TimeMeter;

/**
 * The per-address budgets with their defaults (1000 failures, then 1000 a minute; 10 wrong passwords a minute, two at
 * once), on a clock the test moves.
 */
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
    void wrongPasswordsFromOneAddressStopItsBcryptAfterTwoAtOnceButNotItsReads() {
        wrong("203.0.113.5");
        assertFalse(budget.guessesExhausted("203.0.113.5"));
        wrong("203.0.113.5");

        assertTrue(budget.guessesExhausted("203.0.113.5"), "a spray from one address: no more hashes for now");
        assertNull(budget.tryGuess("203.0.113.5"));
        assertFalse(budget.exhausted("203.0.113.5"), "its other failures' budget is untouched");
        nanos.addAndGet(Duration.ofSeconds(6).toNanos()); // 10 a minute: one back every 6 s
        assertFalse(budget.guessesExhausted("203.0.113.5"));
        wrong("203.0.113.5");
        assertTrue(budget.guessesExhausted("203.0.113.5"));
        nanos.addAndGet(Duration.ofMinutes(1).toNanos());
        for (int i = 0; i < 2; i++) {
            assertFalse(budget.guessesExhausted("203.0.113.5"), "never more than two at once");
            wrong("203.0.113.5");
        }
        assertTrue(budget.guessesExhausted("203.0.113.5"));
    }

    @Test
    void wrongPasswordsSentAtOnceAreAllChargedSoTheyBuyNoMoreHashesOverTime() {
        // Ten cold checks of one address arrive while its budget is whole: none is held back (a correct password
        // costs nothing), and all ten turn out wrong.
        List<SourceBudget.Guess> wave = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            SourceBudget.Guess guess = budget.tryGuess("203.0.113.6");
            assertNotNull(guess);
            wave.add(guess);
        }
        wave.forEach(SourceBudget.Guess::wrongPassword);

        // 2 at once, 10 spent: a debt of 8, paid back at one a 6 s before the next hash (the 9th token, at 54 s).
        nanos.addAndGet(Duration.ofSeconds(53).toNanos());
        assertNull(budget.tryGuess("203.0.113.6"), "ten guesses at once cost the address ten of its budget");
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertNotNull(budget.tryGuess("203.0.113.6"));
    }

    @Test
    void anAddressWithWrongPasswordsChargedHasItsGuessesInFlightCounted() {
        wrong("203.0.113.8"); // one of two left
        SourceBudget.Guess hashing = budget.tryGuess("203.0.113.8");
        assertNotNull(hashing);

        assertNull(budget.tryGuess("203.0.113.8"), "the one left is hashing: a second check at once gets no hash");
        hashing.notAGuess(); // it matched: a legitimate cold login costs the address nothing
        assertNotNull(budget.tryGuess("203.0.113.8"));
    }

    @Test
    void aNatWhoseStaleDevicesStayWithinTheBudgetKeepsEveryColdLogin() {
        // Behind one address: a device with a stale password every 6 s (five devices retrying every 30 s: 10 a
        // minute), and between them new devices logging in for the first time, for an hour.
        for (int i = 0; i < 600; i++) {
            wrong("192.0.2.7");
            for (int cold = 0; cold < 3; cold++) {
                SourceBudget.Guess guess = budget.tryGuess("192.0.2.7");
                assertNotNull(guess, "cold login " + cold + " after stale password " + i);
                guess.notAGuess();
            }
            nanos.addAndGet(Duration.ofSeconds(6).toNanos());
        }
    }

    /** One cold check of the address whose password was wrong. */
    private void wrong(String source) {
        SourceBudget.Guess guess = budget.tryGuess(source);
        assertNotNull(guess, source + " had no guess left");
        guess.wrongPassword();
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
