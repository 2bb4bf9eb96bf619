package io.deviceidentity.auth.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.authn.RecentlyActiveDevices;

import io.github.bucket4j.TimeMeter;
import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Caffeine chooses the classes of a cache and of its entries by name from the builder's options and instantiates
 * them reflectively; in a native image only registered names exist. This builds the limiter's cache, finds the two
 * classes Caffeine actually picked, and checks the limiter registers exactly those: changing the builder (say,
 * adding expireAfterWrite) without updating the registration fails here instead of in the native executable.
 */
class DeviceAttemptLimiterNativeTest {

    @Test
    void caffeineClassesOfTheLimiterCacheAreTheOnesRegisteredForTheNativeImage() throws Exception {
        DeviceAttemptLimiter limiter = new DeviceAttemptLimiter(DeviceAttemptLimiterTest.defaults(), TimeMeter.SYSTEM_NANOTIME);
        limiter.acquire("native-check");

        assertEquals(caffeineClasses(read(limiter, DeviceAttemptLimiter.class, "buckets")),
                registeredBy(DeviceAttemptLimiter.class));
    }

    @Test
    void theRecentlyActiveDevicesCacheUsesTheSameRegisteredClasses() throws Exception {
        RecentlyActiveDevices devices = new RecentlyActiveDevices(Duration.ofSeconds(30), 1000, System::nanoTime);
        devices.seenActive("native-check");

        assertEquals(caffeineClasses(read(devices, RecentlyActiveDevices.class, "seenAt")),
                registeredBy(RecentlyActiveDevices.class));
    }

    /** The bounded cache class and the node class Caffeine picked for a built cache. */
    private static Set<String> caffeineClasses(Object manualCache) throws ReflectiveOperationException {
        Object boundedCache = read(manualCache, manualCache.getClass(), "cache");
        Object nodeFactory = read(boundedCache, boundedCache.getClass().getSuperclass(), "nodeFactory");
        return Set.of(boundedCache.getClass().getName(), nodeFactory.getClass().getName());
    }

    private static Set<String> registeredBy(Class<?> type) {
        return Arrays.stream(type.getAnnotation(RegisterForReflection.class).classNames())
                .collect(Collectors.toSet());
    }

    private static Object read(Object target, Class<?> declaring, String name) throws ReflectiveOperationException {
        for (Class<?> type = declaring; type != null; type = type.getSuperclass()) {
            try {
                Field field = type.getDeclaredField(name);
                field.setAccessible(true);
                return field.get(target);
            } catch (NoSuchFieldException notHere) {
                // look in the superclass
            }
        }
        throw new NoSuchFieldException(declaring.getName() + "." + name);
    }
}
