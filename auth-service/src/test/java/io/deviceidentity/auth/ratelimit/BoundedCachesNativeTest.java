package io.deviceidentity.auth.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.lang.reflect.Field;
import java.time.Duration;
import java.util.Arrays;
import java.util.Set;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import com.github.benmanes.caffeine.cache.Cache;

import io.quarkus.runtime.annotations.RegisterForReflection;

/**
 * Caffeine chooses the classes of a cache and of its entries by name from the builder's options and instantiates
 * them reflectively; in a native image only registered names exist. This builds a bounded cache, finds the two
 * classes Caffeine actually picked, and checks BoundedCaches registers exactly those: changing the builder (say,
 * adding expireAfterWrite) without updating the registration fails here instead of in the native executable. Every
 * per-id and per-address map of auth-service (budgets, known and unknown devices, recently active devices) is built
 * by BoundedCaches.
 */
class BoundedCachesNativeTest {

    @Test
    void caffeineClassesOfTheBoundedCachesAreTheOnesRegisteredForTheNativeImage() throws Exception {
        Cache<String, Long> cache = BoundedCaches.bounded(1000, Duration.ofSeconds(30));
        cache.put("native-check", 1L);

        assertEquals(caffeineClasses(cache), registeredBy(BoundedCaches.class));
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
