package io.deviceidentity.auth.ratelimit;

import java.time.Duration;

import com.github.benmanes.caffeine.cache.Cache;
import com.github.benmanes.caffeine.cache.Caffeine;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Every in-memory map auth-service keeps per client id or per address: bounded in number (the least recently used
 * go first) and in idle time, so a flood of made-up ids or addresses cannot exhaust memory. One builder, so that all
 * of them are the same Caffeine classes.
 */
// Native image: Caffeine picks its cache and node classes by name from the builder's options (strong keys and values,
// maximumSize, expireAfterAccess) and instantiates them through MethodHandles. Quarkus's Caffeine feature registers
// only a fixed list of cache classes, which lacks the node class PSAMS. BoundedCachesNativeTest checks that these
// names are still the ones these caches use.
@RegisterForReflection(classNames = { BoundedCaches.CAFFEINE_CACHE_CLASS, BoundedCaches.CAFFEINE_NODE_CLASS })
public final class BoundedCaches {

    public static final String CAFFEINE_CACHE_CLASS = "com.github.benmanes.caffeine.cache.SSMSA";
    public static final String CAFFEINE_NODE_CLASS = "com.github.benmanes.caffeine.cache.PSAMS";

    private BoundedCaches() {
    }

    /** At most {@code maximumSize} entries, each forgotten after {@code idle} without being read or written. */
    public static <K, V> Cache<K, V> bounded(long maximumSize, Duration idle) {
        // Maintenance (eviction, expiry) on the calling thread, in small amortized steps: handing it to the common
        // pool woke another thread hundreds of times a second in a storm, on a pod's CPU quota.
        return Caffeine.newBuilder()
                .executor(Runnable::run)
                .maximumSize(maximumSize)
                .expireAfterAccess(idle.isZero() || idle.isNegative() ? Duration.ofNanos(1) : idle)
                .build();
    }
}
