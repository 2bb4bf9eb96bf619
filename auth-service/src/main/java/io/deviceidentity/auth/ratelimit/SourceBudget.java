package io.deviceidentity.auth.ratelimit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import com.github.benmanes.caffeine.cache.Cache;

import io.deviceidentity.auth.AuthConfig;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.TimeMeter;

/**
 * Failures per source address at this replica, in token buckets per address (Bucket4j), each refilled smoothly over
 * the period: every failure (unknown ids, wrong passwords, wrong usernames, revoked ids), {@code source-failures},
 * consulted before the database read, so a flood from one address costs nothing once its budget is spent; and wrong
 * passwords alone, {@code source-guesses}, because each of those costs a hash: a spray over many registered ids from
 * one address takes at most that many hashes a period, not the fleet's bcrypt capacity.
 *
 * <p><b>Charged at cost.</b> A wrong password is charged its {@link Charge} (a cost-14 row 16 guesses), so picking
 * the dearest rows buys an address proportionally fewer hashes, not more CPU.
 *
 * <p><b>Shared fairly.</b> Behind a NAT the address is many devices: one attacker (or a device with a stale password)
 * must not take the cold logins of all the others. So the guesses are two shares of the budget, half each:
 * <ul>
 *   <li>the <em>repeat</em> share, for client ids that had a wrong password from this address within the period:
 *       an id that keeps failing spends only this one, however often it retries;</li>
 *   <li>the <em>first</em> share, for ids with no wrong password here lately: the cold login of a device that never
 *       failed here is decided in this share, which the repeaters cannot touch. Only a spray over many registered ids
 *       spends it (each id once a period); a correct password in it earns the share a quarter of a guess back, so an
 *       address whose cold logins are mostly correct (a NAT in a reconnect storm, a few stale devices among many)
 *       repays its stale devices' first failures, while a spray, which matches nothing, earns nothing.</li>
 * </ul>
 * The two rates add up to the budget, so a spray, whichever ids it picks, takes no more hashes per period than one
 * undivided budget gave it; at once it may take the repeat share's one more (3 instead of 2 with the defaults).
 *
 * <p><b>Guesses in flight count.</b> Every wrong password is charged, beyond its share if need be (a debt the address
 * pays back before its next hash in that share: Bucket4j's {@code consumeIgnoringRateLimits}; a share is remembered
 * {@value #DEBT_PERIODS} periods, so a pause does not forgive a debt), so many sent at once buy no more hashes over
 * time than the budget. A check takes its guess before the hash ({@link #tryGuess}, up to
 * the share's size for a dear row) and gives it back when the password matched or the hash never ran, so a share has
 * at most its remaining guesses hashing at once. Only the first share of an address with no recent wrong password
 * (whole) holds nothing back: a correct password costs it nothing, and a NAT's first cold logins after a re-key all
 * run at once.
 *
 * <p>In memory only, per replica: the bound across the cluster is replicas × the budget. That is what lets it be
 * decided without any database work (it guards the database too), and a replica's bcrypt is its own CPU: an address
 * gets the same share of each replica. Successes cost nothing.
 */
@ApplicationScoped
public class SourceBudget {

    /** Tokens per guess, so that a correct password can earn back a quarter of one. */
    static final long TOKENS_PER_GUESS = 4;
    /** What a correct password in the first share earns it back: a quarter of a guess. */
    static final long EARNED_PER_MATCH = 1;
    /**
     * A share is remembered for this many periods without use, and one wrong password leaves at most that many periods
     * of its rate as debt: a debt (a cost-14 row is 16 guesses, three periods of a half) must not be forgiven by the
     * share being forgotten after one idle period.
     */
    static final int DEBT_PERIODS = 16;

    /** Which share a check is decided in. */
    enum Share {
        FIRST, REPEAT
    }

    /** A client id as one address sent it. */
    private record Pair(String source, String clientId) {
    }

    private final AuthConfig.RateLimit config;
    private final TimeMeter clock;
    private final Cache<String, Bucket> buckets;
    private final Cache<String, Bucket> firsts;
    private final Cache<String, Bucket> repeats;
    private final Cache<Pair, Long> failedAt;

    @Inject
    public SourceBudget(AuthConfig config) {
        this(config.rateLimit(), TimeMeter.SYSTEM_NANOTIME);
    }

    public SourceBudget(AuthConfig.RateLimit config, TimeMeter clock) {
        this.config = config;
        this.clock = clock;
        this.buckets = BoundedCaches.bounded(config.maxTrackedDevices(), config.period());
        this.firsts = BoundedCaches.bounded(config.maxTrackedDevices(), config.period().multipliedBy(DEBT_PERIODS));
        this.repeats = BoundedCaches.bounded(config.maxTrackedDevices(), config.period().multipliedBy(DEBT_PERIODS));
        this.failedAt = BoundedCaches.bounded(config.maxTrackedDevices(), config.period());
    }

    /** Whether this address has spent its failure budget (nothing is taken). */
    public boolean exhausted(String source) {
        return config.enabled() && empty(buckets.getIfPresent(source));
    }

    /**
     * Whether a cold check of {@code clientId} from this address would get no hash now (nothing is taken): its failure
     * budget is spent, or the share the id is decided in. The cheap early refusal, before the shared attempt budget
     * is consulted; {@link #tryGuess} decides at the last moment.
     */
    public boolean guessesExhausted(String source, String clientId) {
        if (!config.enabled()) {
            return false;
        }
        if (empty(buckets.getIfPresent(source))) {
            return true;
        }
        if (share(source, clientId) == Share.REPEAT) {
            stillFailing(source, clientId);
            Bucket repeat = repeats.getIfPresent(source);
            return repeat != null && !repeat.estimateAbilityToConsume(TOKENS_PER_GUESS).canBeConsumed();
        }
        Bucket first = firsts.getIfPresent(source);
        return first != null && !first.estimateAbilityToConsume(TOKENS_PER_GUESS).canBeConsumed();
    }

    /**
     * The share a cold check of {@code clientId} from {@code source} is decided in now: the repeat share for a period
     * after the id's last wrong password or refused retry from the address, the first share otherwise.
     */
    Share share(String source, String clientId) {
        Long at = failedAt.getIfPresent(new Pair(source, clientId));
        return at != null && clock.currentTimeNanos() - at < config.period().toNanos() ? Share.REPEAT : Share.FIRST;
    }

    /**
     * An id in the repeat share that tries again stays there for another period, hashed or not: a stale device that
     * retries faster than its share refills must not drift back into the first share and take the others' logins.
     */
    private void stillFailing(String source, String clientId) {
        failedAt.put(new Pair(source, clientId), clock.currentTimeNanos());
    }

    /**
     * A guess for a hash of {@code charge} guesses ({@link Charge}) about to run, or null when the id's share of the
     * address has none left (then no hash). Settle it with {@link Guess#wrongPassword}, {@link Guess#matched} or
     * {@link Guess#notHashed} once the hash has decided (or failed to run).
     */
    public Guess tryGuess(String source, String clientId, int charge) {
        if (!config.enabled()) {
            return new Guess(source, clientId, null, 0, 0, 0);
        }
        if (empty(buckets.getIfPresent(source))) {
            return null;
        }
        long tokens = (long) charge * TOKENS_PER_GUESS;
        Bucket bucket;
        long size;
        long perPeriod;
        if (share(source, clientId) == Share.FIRST) {
            size = firstAtOnce();
            perPeriod = firstPerPeriod();
            bucket = firsts.get(source, key -> newBucket(size, perPeriod, size));
            if (bucket.getAvailableTokens() >= size) {
                // No wrong password lately: nothing held back.
                return new Guess(source, clientId, bucket, tokens, 0, perPeriod);
            }
        } else {
            stillFailing(source, clientId);
            size = repeatAtOnce();
            perPeriod = repeatPerPeriod();
            bucket = repeats.get(source, key -> newBucket(size, perPeriod, size));
        }
        // A row dearer than the share can ever hold takes the whole share, and the rest is charged if it was a guess.
        long taken = Math.min(tokens, size);
        return bucket.tryConsume(taken) ? new Guess(source, clientId, bucket, tokens, taken, perPeriod) : null;
    }

    /** Charges one failure to the address (when it has none left, nothing more happens). */
    public void failed(String source) {
        if (config.enabled()) {
            buckets.get(source, key -> newBucket(config.sourceFailures(), config.sourceFailures(),
                    config.sourceFailures())).tryConsume(1);
        }
    }

    /** One cold check's guess, settled once. */
    public final class Guess {
        private final String source;
        private final String clientId;
        private final Bucket bucket;
        private final long tokens;
        private final long taken;
        private final long perPeriod;

        private Guess(String source, String clientId, Bucket bucket, long tokens, long taken, long perPeriod) {
            this.source = source;
            this.clientId = clientId;
            this.bucket = bucket;
            this.tokens = tokens;
            this.taken = taken;
            this.perPeriod = perPeriod;
        }

        /**
         * The password was wrong: the guess is spent at its full charge (into debt beyond what was taken), it is a
         * failure of the address, and the id's next checks from here are decided in the repeat share.
         */
        public void wrongPassword() {
            if (bucket != null && tokens > taken) {
                bucket.consumeIgnoringRateLimits(Math.min(tokens - taken, perPeriod * DEBT_PERIODS));
            }
            if (bucket != null) {
                stillFailing(source, clientId);
            }
            failed(source);
        }

        /**
         * The password matched: what was taken goes back, the first share earns a quarter of a guess, and the id (a
         * device that had a stale password) is new again.
         */
        public void matched() {
            notHashed();
            if (bucket != null) {
                failedAt.invalidate(new Pair(source, clientId));
            }
            Bucket first = bucket == null ? null : firsts.getIfPresent(source);
            if (first != null) {
                first.addTokens(EARNED_PER_MATCH);
            }
        }

        /** The hash was refused or never ran: it was no guess, and what was taken goes back. */
        public void notHashed() {
            if (bucket != null && taken > 0) {
                bucket.addTokens(taken);
            }
        }
    }

    /** A quarter of the guesses at once: a spray that starts from several addresses takes a few hashes, not a burst. */
    private long atOnce() {
        return Math.max(1, config.sourceGuesses() / 4) * TOKENS_PER_GUESS;
    }

    private long firstAtOnce() {
        return atOnce();
    }

    /** Half as many at once as the first share (one with the defaults): repeaters are the likelier guessers. */
    private long repeatAtOnce() {
        return Math.max(TOKENS_PER_GUESS, atOnce() / 2 / TOKENS_PER_GUESS * TOKENS_PER_GUESS);
    }

    private long firstPerPeriod() {
        return Math.max(1, config.sourceGuesses() * TOKENS_PER_GUESS / 2);
    }

    private long repeatPerPeriod() {
        return Math.max(1, config.sourceGuesses() * TOKENS_PER_GUESS - firstPerPeriod());
    }

    private static boolean empty(Bucket bucket) {
        return bucket != null && !bucket.estimateAbilityToConsume(1).canBeConsumed();
    }

    private Bucket newBucket(long capacity, long perPeriod, long initial) {
        return Bucket.builder()
                .withCustomTimePrecision(clock)
                .addLimit(limit -> limit.capacity(capacity).refillGreedy(perPeriod, config.period())
                        .initialTokens(initial))
                .build();
    }
}
