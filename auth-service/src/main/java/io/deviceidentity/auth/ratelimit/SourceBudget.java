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
 * passwords alone, {@code source-guesses}, consulted before bcrypt, because each of those cost a hash: a spray over
 * many registered ids from one address takes at most that many hashes a period, not the fleet's bcrypt capacity.
 * In memory only: across replicas the bound is replicas × the budget, which is what lets it be checked without any
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

    /** Whether this address has spent its budget of wrong passwords: no more bcrypt for it for now. */
    public boolean guessesExhausted(String source) {
        return config.enabled() && (empty(guesses.getIfPresent(source)) || empty(buckets.getIfPresent(source)));
    }

    /** Charges one failure to the address (when it has none left, nothing more happens). */
    public void failed(String source) {
        if (config.enabled()) {
            buckets.get(source, key -> newBucket(config.sourceFailures(), config.sourceFailures())).tryConsume(1);
        }
    }

    /** Charges one wrong password (a failure that cost a bcrypt) to the address. */
    public void guessed(String source) {
        if (config.enabled()) {
            failed(source);
            // A quarter of them at once: a spray that starts from several addresses takes a few hashes, not a burst.
            guesses.get(source, key -> newBucket(Math.max(1, config.sourceGuesses() / 4), config.sourceGuesses()))
                    .tryConsume(1);
        }
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
