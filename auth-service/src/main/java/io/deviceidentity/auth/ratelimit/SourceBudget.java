package io.deviceidentity.auth.ratelimit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import com.github.benmanes.caffeine.cache.Cache;

import io.deviceidentity.auth.AuthConfig;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;

/**
 * Failures per source address at this replica, two token buckets per address (Bucket4j), each refilled smoothly over
 * the period: every failure (unknown ids, wrong passwords, wrong usernames, revoked ids), {@code source-failures},
 * consulted before the database read, so a flood from one address costs nothing once its budget is spent; and wrong
 * passwords alone, {@code source-guesses}, because each of those costs a hash: a spray over many registered ids from
 * one address takes at most that many hashes a period, not the fleet's bcrypt capacity.
 *
 * <p>Guesses in flight count. Every wrong password is charged, beyond the budget if need be (a debt the address pays
 * back before its next hash: Bucket4j's {@code consumeIgnoringRateLimits}), so many sent at once buy no more hashes
 * over time than the budget; and while an address has any guess charged (its bucket is not full), a cold check takes
 * its guess before the hash ({@link #tryGuess}) and gives it back when the password matched or the hash never ran, so
 * such an address has at most its remaining guesses hashing at once, not one per request that arrived while the
 * first were hashing. An address with no recent wrong password (a NAT whose devices log in cold after a re-key, a
 * load test) is not held back at all: a correct password costs it nothing.
 *
 * <p>In memory only: across replicas the bound is replicas × the budget, which is what lets it be checked without any
 * database work. Successes cost nothing.
 */
@ApplicationScoped
public class SourceBudget {

    private final AuthConfig.RateLimit config;
    private final TimeMeter clock;
    private final Cache<String, Bucket> buckets;
    private final Cache<String, Bucket> guesses;

    @Inject
    public SourceBudget(AuthConfig config) {
        this(config.rateLimit(), TimeMeter.SYSTEM_NANOTIME);
    }

    public SourceBudget(AuthConfig.RateLimit config, TimeMeter clock) {
        this.config = config;
        this.clock = clock;
        this.buckets = BoundedCaches.bounded(config.maxTrackedDevices(), config.period());
        this.guesses = BoundedCaches.bounded(config.maxTrackedDevices(), config.period());
    }

    /** Whether this address has spent its failure budget (nothing is taken). */
    public boolean exhausted(String source) {
        return config.enabled() && empty(buckets.getIfPresent(source));
    }

    /**
     * Whether this address has spent its budget of wrong passwords (nothing is taken): the cheap early refusal, before
     * the shared attempt budget is consulted. {@link #tryGuess} decides at the last moment.
     */
    public boolean guessesExhausted(String source) {
        return config.enabled() && (empty(guesses.getIfPresent(source)) || empty(buckets.getIfPresent(source)));
    }

    /**
     * A guess for a bcrypt about to run, or null when the address has none left (then no hash). Settle it with
     * {@link Guess#wrongPassword} or {@link Guess#notAGuess} once the hash has decided (or failed to run).
     */
    public Guess tryGuess(String source) {
        if (!config.enabled()) {
            return new Guess(source, null, false);
        }
        if (empty(buckets.getIfPresent(source))) {
            return null;
        }
        Bucket bucket = guesses.get(source, key -> newBucket(guessesAtOnce(), config.sourceGuesses()));
        if (bucket.getAvailableTokens() >= guessesAtOnce()) {
            return new Guess(source, bucket, false); // no wrong password lately: nothing held back
        }
        return bucket.tryConsume(1) ? new Guess(source, bucket, true) : null;
    }

    /** Charges one failure to the address (when it has none left, nothing more happens). */
    public void failed(String source) {
        if (config.enabled()) {
            buckets.get(source, key -> newBucket(config.sourceFailures(), config.sourceFailures())).tryConsume(1);
        }
    }

    /** One cold check's guess, settled once. */
    public final class Guess {
        private final String source;
        private final Bucket bucket;
        private final boolean taken;

        private Guess(String source, Bucket bucket, boolean taken) {
            this.source = source;
            this.bucket = bucket;
            this.taken = taken;
        }

        /** The password was wrong: the guess is spent (into debt if it was not taken before), and it is a failure. */
        public void wrongPassword() {
            if (bucket != null && !taken) {
                bucket.consumeIgnoringRateLimits(1);
            }
            failed(source);
        }

        /** It was no guess (the password matched, or the hash was refused or never ran): a taken guess goes back. */
        public void notAGuess() {
            if (bucket != null && taken) {
                bucket.addTokens(1);
            }
        }
    }

    private int guessesAtOnce() {
        // A quarter of them at once: a spray that starts from several addresses takes a few hashes, not a burst.
        return Math.max(1, config.sourceGuesses() / 4);
    }

    private static boolean empty(Bucket bucket) {
        return bucket != null && !bucket.estimateAbilityToConsume(1).canBeConsumed();
    }

    private Bucket newBucket(int burst, int perPeriod) {
        return Bucket.builder()
                .withCustomTimePrecision(clock)
                .addLimit(limit -> limit.capacity(burst).refillGreedy(perPeriod, config.period()))
                .build();
    }
}
