package io.deviceidentity.auth.ratelimit;

import java.time.Duration;

import io.deviceidentity.auth.AuthConfig;

/** The failure budgets' documented defaults (AuthConfig.RateLimit), for tests that build them without Quarkus. */
final class TestRateLimits {

    private TestRateLimits() {
    }

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

            public int clientAttempts() {
                return 100;
            }

            public int sourceFailures() {
                return 1000;
            }

            public int sourceGuesses() {
                return 10;
            }

            public long maxTrackedDevices() {
                return 1000;
            }

            public Duration writeInterval() {
                return Duration.ofMillis(200);
            }

            public int writeBatch() {
                return 1000;
            }

            public int writeQueue() {
                return 20_000;
            }

            public Duration refreshInterval() {
                return Duration.ofSeconds(1);
            }
        };
    }
}
