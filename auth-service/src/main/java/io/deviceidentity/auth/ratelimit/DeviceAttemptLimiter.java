package io.deviceidentity.auth.ratelimit;

import java.time.Duration;
import java.util.concurrent.TimeUnit;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.http.RateLimitedException;
import io.github.bucket4j.Bucket;
import io.github.bucket4j.ConsumptionProbe;
import io.github.bucket4j.EstimationProbe;
import io.github.bucket4j.TimeMeter;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * One token bucket per client id (Bucket4j), kept in a size-bounded Caffeine cache so a flood of made-up client
 * ids cannot exhaust memory. SmallRye's {@code @RateLimit} cannot do this: it is one limit per method. A refused
 * attempt takes no token, so a device that slows down gets through again (unlike fixed or rolling windows, which
 * keep rejecting a caller that retries too fast).
 */
@ApplicationScoped
// Native image: Caffeine picks its cache and node classes by name from the builder's options (strong keys and values,
// maximumSize, expireAfterAccess) and instantiates them through MethodHandles. Quarkus's Caffeine feature registers
// only a fixed list of cache classes, which lacks the node class PSAMS. DeviceAttemptLimiterNativeTest checks that
// these names are still the ones this cache uses.
@RegisterForReflection(classNames = {
        DeviceAttemptLimiter.CAFFEINE_CACHE_CLASS, DeviceAttemptLimiter.CAFFEINE_NODE_CLASS })
public class DeviceAttemptLimiter {

    public static final String CAFFEINE_CACHE_CLASS = "com.github.benmanes.caffeine.cache.SSMSA";
    public static final String CAFFEINE_NODE_CLASS = "com.github.benmanes.caffeine.cache.PSAMS";

    private final AuthConfig.RateLimit config;
    private final TimeMeter clock;
    private final Cache<String, Bucket> buckets;

    @Inject
    public DeviceAttemptLimiter(AuthConfig authConfig) {
        this(authConfig.rateLimit(), TimeMeter.SYSTEM_NANOTIME);
    }

    DeviceAttemptLimiter(AuthConfig.RateLimit config, TimeMeter clock) {
        this.config = config;
        this.clock = clock;
        Duration period = config.period();
        this.buckets = Caffeine.newBuilder()
                .maximumSize(config.maxTrackedDevices())
                // A bucket untouched for a full period is full again: forgetting it changes nothing.
                .expireAfterAccess(period)
                .build();
    }

    /**
     * Refuses a device that has no attempt left, without taking one: called before the read, so that a device
     * locked out by its wrong passwords costs nothing more. The attempt itself is taken by {@link #acquire} once the
     * check is known to cost something (a fast-path allow takes none).
     */
    public void refuseIfExhausted(String clientId) {
        if (!config.enabled()) {
            return;
        }
        Bucket bucket = buckets.getIfPresent(clientId);
        if (bucket == null) {
            return;
        }
        EstimationProbe probe = bucket.estimateAbilityToConsume(1);
        if (!probe.canBeConsumed()) {
            throw new RateLimitedException(
                    (long) Math.ceil(probe.getNanosToWaitForRefill() / (double) TimeUnit.SECONDS.toNanos(1)));
        }
    }

    /** Takes one attempt for the device, or throws {@link RateLimitedException} when it has none left. */
    public void acquire(String clientId) {
        if (!config.enabled()) {
            return;
        }
        Bucket bucket = buckets.get(clientId, id -> newBucket());
        ConsumptionProbe probe = bucket.tryConsumeAndReturnRemaining(1);
        if (!probe.isConsumed()) {
            throw new RateLimitedException(
                    (long) Math.ceil(probe.getNanosToWaitForRefill() / (double) TimeUnit.SECONDS.toNanos(1)));
        }
    }

    private Bucket newBucket() {
        return Bucket.builder()
                .withCustomTimePrecision(clock)
                .addLimit(limit -> limit.capacity(config.attempts()).refillGreedy(config.attempts(), config.period()))
                .build();
    }
}
