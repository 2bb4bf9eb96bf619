package io.deviceidentity.auth.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;
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
 * The per-address budgets with their defaults (1000 failures, then 1000 a minute; 10 wrong passwords a minute, in two
 * shares of 5: ids without a recent wrong password from the address, 2 at once, and ids with one, 1 at once), on a
 * clock the test moves.
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
    private int ids;

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
    void aSprayOverNewIdsStopsAfterTwoAtOnceButNotTheAddressesReads() {
        wrong("203.0.113.5", newId());
        assertFalse(budget.guessesExhausted("203.0.113.5", newId()));
        wrong("203.0.113.5", newId());

        assertTrue(budget.guessesExhausted("203.0.113.5", newId()), "a spray from one address: no more hashes for now");
        assertNull(budget.tryGuess("203.0.113.5", newId(), 1));
        assertFalse(budget.exhausted("203.0.113.5"), "its other failures' budget is untouched");
        nanos.addAndGet(Duration.ofSeconds(12).toNanos()); // 5 a minute for new ids: one back every 12 s
        assertFalse(budget.guessesExhausted("203.0.113.5", newId()));
        wrong("203.0.113.5", newId());
        assertTrue(budget.guessesExhausted("203.0.113.5", newId()));
    }

    @Test
    void aSprayBuysNoMoreHashesPerPeriodThanOneUndividedBudgetGave() {
        // Before the shares, an address had 10 wrong passwords a minute, 2 at once: at most 2 + 10 × 10 in ten
        // minutes, whichever ids it picked. Now the same rate, and the repeat share's one guess at once besides. A
        // spray trying a hash every second, over new ids or round a few.
        for (int round = 0; round < 2; round++) {
            String sprayer = "203.0.113." + (20 + round);
            List<String> targets = new ArrayList<>();
            for (int i = 0; i < 30; i++) {
                targets.add(newId());
            }
            int hashes = 0;
            for (int second = 0; second < 600; second++) {
                String id = round == 0 ? newId() : targets.get(second % targets.size());
                SourceBudget.Guess guess = budget.tryGuess(sprayer, id, 1);
                if (guess != null) {
                    hashes++;
                    guess.wrongPassword();
                }
                nanos.addAndGet(Duration.ofSeconds(1).toNanos());
            }
            assertTrue(hashes <= 2 + 1 + 10 * 10, (round == 0 ? "new ids: " : "the same 30 ids: ") + hashes + " hashes");
        }
    }

    @Test
    void oneIdFailingOverAndOverTakesOnlyItsOwnShareAndTheAddressesOtherIdsKeepTheirColdLogins() {
        String nat = "192.0.2.50";
        String attacker = newId();
        for (int second = 0; second < 120; second++) {
            // The attacker's id, as fast as the address lets it; then a device that never failed here, logging in
            // cold with its right password.
            SourceBudget.Guess guess;
            while ((guess = budget.tryGuess(nat, attacker, 1)) != null) {
                guess.wrongPassword();
            }
            SourceBudget.Guess cold = budget.tryGuess(nat, newId(), 1);
            assertNotNull(cold, "cold login at " + second + " s");
            cold.matched();
            nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        }
    }

    @Test
    void aWrongPasswordAgainstACost14RowIsCharged16Guesses() {
        // The first share is whole (2), so the cost-14 check is not held back; its wrong password costs 16: a debt of
        // 14 guesses at 5 a minute before the address's next new id gets a hash (2.8 min + 12 s for that one).
        SourceBudget.Guess dear = budget.tryGuess("203.0.113.14", newId(), 16);
        assertNotNull(dear);
        dear.wrongPassword();

        nanos.addAndGet(Duration.ofSeconds(179).toNanos());
        assertNull(budget.tryGuess("203.0.113.14", newId(), 1), "a cost-14 guess cost the address 16 of its guesses");
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertNotNull(budget.tryGuess("203.0.113.14", newId(), 1));
    }

    @Test
    void wrongPasswordsSentAtOnceAreAllChargedSoTheyBuyNoMoreHashesOverTime() {
        // Ten cold checks of one address arrive while its budget is whole: none is held back (a correct password
        // costs nothing), and all ten turn out wrong.
        List<SourceBudget.Guess> wave = new ArrayList<>();
        for (int i = 0; i < 10; i++) {
            SourceBudget.Guess guess = budget.tryGuess("203.0.113.6", newId(), 1);
            assertNotNull(guess);
            wave.add(guess);
        }
        wave.forEach(SourceBudget.Guess::wrongPassword);

        // 2 at once, 10 spent: a debt of 8, paid back at one every 12 s before the next hash (the 9th guess, at 108 s).
        nanos.addAndGet(Duration.ofSeconds(107).toNanos());
        assertNull(budget.tryGuess("203.0.113.6", newId(), 1), "ten guesses at once cost the address ten of its budget");
        nanos.addAndGet(Duration.ofSeconds(1).toNanos());
        assertNotNull(budget.tryGuess("203.0.113.6", newId(), 1));
    }

    @Test
    void anAddressWithWrongPasswordsChargedHasItsGuessesInFlightCounted() {
        wrong("203.0.113.8", newId()); // one of two left
        SourceBudget.Guess hashing = budget.tryGuess("203.0.113.8", newId(), 1);
        assertNotNull(hashing);

        assertNull(budget.tryGuess("203.0.113.8", newId(), 1),
                "the one left is hashing: a second check at once gets no hash");
        hashing.notHashed();
        assertNotNull(budget.tryGuess("203.0.113.8", newId(), 1));
    }

    @Test
    void correctPasswordsRepayTheFirstFailuresOfStaleDevicesButASprayEarnsNothing() {
        // A storm behind one NAT: 5 % of its devices have a stale password. 20 go at once: the 19 right ones cost
        // nothing, and each earns a quarter of a guess back, which repays the stale one.
        List<SourceBudget.Guess> wave = new ArrayList<>();
        for (int i = 0; i < 20; i++) {
            wave.add(budget.tryGuess("192.0.2.60", newId(), 1));
        }
        wave.get(0).wrongPassword();
        wave.get(1).wrongPassword();
        wave.subList(2, 20).forEach(SourceBudget.Guess::matched);

        for (int i = 0; i < 20; i++) {
            SourceBudget.Guess next = budget.tryGuess("192.0.2.60", newId(), 1);
            assertNotNull(next, "cold login " + i + " after the wave");
            next.matched();
        }
    }

    @Test
    void aNatWhoseStaleDevicesRetryKeepsItsColdLoginsOnceTheirFirstFailuresAreRepaid() {
        // Behind one address: five devices with a stale password, each retrying every 6 s (50 a minute, five times the
        // budget), and between them new devices logging in for the first time, for an hour. The stale devices' first
        // failures are charged to the first share (each is a new id until then): 5 guesses, a minute of it. After
        // that their retries spend only the repeat share, and every cold login gets its hash.
        String nat = "192.0.2.7";
        List<String> stale = List.of(newId(), newId(), newId(), newId(), newId());
        int refused = 0;
        for (int i = 0; i < 600; i++) {
            for (int cold = 0; cold < 3; cold++) {
                SourceBudget.Guess guess = budget.tryGuess(nat, newId(), 1);
                if (i < 15) {
                    refused += guess == null ? 1 : 0;
                } else {
                    assertNotNull(guess, "cold login " + cold + " after " + i + " rounds of stale passwords");
                }
                if (guess != null) {
                    guess.matched();
                }
            }
            for (String device : stale) {
                SourceBudget.Guess retry = budget.tryGuess(nat, device, 1);
                if (retry != null) {
                    retry.wrongPassword();
                }
            }
            nanos.addAndGet(Duration.ofSeconds(6).toNanos());
        }
        assertTrue(refused <= 30, refused + " cold logins refused in the first 90 s");
    }

    @Test
    void anIdThatFailedHereIsDecidedInTheRepeatShareForAPeriod() {
        String id = newId();
        assertEquals(SourceBudget.Share.FIRST, budget.share("192.0.2.9", id));
        wrong("192.0.2.9", id);

        assertEquals(SourceBudget.Share.REPEAT, budget.share("192.0.2.9", id));
        assertEquals(SourceBudget.Share.FIRST, budget.share("192.0.2.10", id), "from another address it is new");
        nanos.addAndGet(Duration.ofMinutes(1).toNanos());
        assertEquals(SourceBudget.Share.FIRST, budget.share("192.0.2.9", id));
    }

    /** One cold check of the id from the address whose password was wrong. */
    private void wrong(String source, String id) {
        SourceBudget.Guess guess = budget.tryGuess(source, id, 1);
        assertNotNull(guess, source + " had no guess left");
        guess.wrongPassword();
    }

    private String newId() {
        return "device-" + ids++;
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
