package io.deviceidentity.auth.ratelimit;

import static org.junit.jupiter.api.Assertions.assertDoesNotThrow;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.http.RateLimitedException;
import io.github.bucket4j.TimeMeter;

/** The per-device limit with its defaults (10 in a burst, then 10 a minute), on a clock the test moves. */
class DeviceAttemptLimiterTest {

    private final AtomicLong nanos = new AtomicLong();
    private final DeviceAttemptLimiter limiter = new DeviceAttemptLimiter(defaults(), new TimeMeter() {
        public long currentTimeNanos() {
            return nanos.get();
        }

        public boolean isWallClockBased() {
            return false;
        }
    });

    @Test
    void aDeviceReconnectingAFewTimesAMinuteIsNeverStoppedInAnHour() {
        for (int attempt = 0; attempt < 4 * 60; attempt++) {
            assertDoesNotThrow(() -> limiter.acquire("steady-device"));
            advance(Duration.ofSeconds(15));
        }
    }

    @Test
    void aDeviceRetryingEvery12SecondsIsNeverStopped() {
        for (int attempt = 0; attempt < 300; attempt++) {
            assertDoesNotThrow(() -> limiter.acquire("incident-retry-timer"));
            advance(Duration.ofSeconds(12));
        }
    }

    @Test
    void aHammeringDeviceIsStoppedAfterItsBurstAndToldWhenToComeBack() {
        for (int attempt = 0; attempt < 10; attempt++) {
            limiter.acquire("hammer");
        }
        RateLimitedException limited = assertThrows(RateLimitedException.class, () -> limiter.acquire("hammer"));
        assertTrue(limited.retryAfterSeconds() >= 1 && limited.retryAfterSeconds() <= 6,
                "retry after " + limited.retryAfterSeconds());

        advance(Duration.ofSeconds(limited.retryAfterSeconds()));
        assertDoesNotThrow(() -> limiter.acquire("hammer"));
    }

    @Test
    void refusedAttemptsDoNotPostponeTheNextAllowedOne() {
        for (int attempt = 0; attempt < 10; attempt++) {
            limiter.acquire("storm");
        }
        for (int attempt = 0; attempt < 100; attempt++) {
            assertThrows(RateLimitedException.class, () -> limiter.acquire("storm"));
        }
        advance(Duration.ofSeconds(6));
        assertDoesNotThrow(() -> limiter.acquire("storm"));
    }

    @Test
    void devicesHaveSeparateBuckets() {
        for (int attempt = 0; attempt < 10; attempt++) {
            limiter.acquire("noisy");
        }
        assertThrows(RateLimitedException.class, () -> limiter.acquire("noisy"));
        assertDoesNotThrow(() -> limiter.acquire("quiet"));
    }

    private void advance(Duration duration) {
        nanos.addAndGet(TimeUnit.NANOSECONDS.convert(duration));
    }

    /** The limit's documented defaults (AuthConfig): 10 attempts in a burst, then 10 a minute. */
    static AuthConfig.RateLimit defaults() {
        return new AuthConfig.RateLimit() {
            public boolean enabled() {
                return true;
            }

            public int attempts() {
                return 10;
            }

            public Duration period() {
                return Duration.ofMinutes(1);
            }

            public long maxTrackedDevices() {
                return 1000;
            }
        };
    }
}
