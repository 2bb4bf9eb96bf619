package io.deviceidentity.helm;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

/**
 * The failure budgets (identity.auth.rate-limit.*, docs/security.md "The adversary") are chart values: each reaches
 * auth-service's environment as the value given, and the schema refuses a budget of zero (which would refuse every
 * cold check) before anything is rendered.
 */
class RateLimitChartTest {

    @Test
    void everyBudgetReachesAuthServiceAsGiven() {
        Map<String, String> env = ServicesTest.env(Chart.render(Chart.set(
                "authService.rateLimit.attempts", 5,
                "authService.rateLimit.period", "2m",
                "authService.rateLimit.enabled", false,
                "authService.rateLimit.clientAttempts", 250,
                "authService.rateLimit.sourceFailures", 5000,
                "authService.rateLimit.sourceGuesses", 40,
                "authService.rateLimit.maxTrackedDevices", 1000000)), "auth-service");

        assertEquals("5", env.get("IDENTITY_AUTH_RATE_LIMIT_ATTEMPTS"));
        assertEquals("2m", env.get("IDENTITY_AUTH_RATE_LIMIT_PERIOD"));
        assertEquals("false", env.get("IDENTITY_AUTH_RATE_LIMIT_ENABLED"));
        assertEquals("250", env.get("IDENTITY_AUTH_RATE_LIMIT_CLIENT_ATTEMPTS"));
        assertEquals("5000", env.get("IDENTITY_AUTH_RATE_LIMIT_SOURCE_FAILURES"));
        assertEquals("40", env.get("IDENTITY_AUTH_RATE_LIMIT_SOURCE_GUESSES"));
        assertEquals("1000000", env.get("IDENTITY_AUTH_RATE_LIMIT_MAX_TRACKED_DEVICES"), "not 1e+06");
    }

    @Test
    void aBudgetOfZeroIsRefused() {
        for (String key : new String[] {"clientAttempts", "sourceFailures", "sourceGuesses", "maxTrackedDevices"}) {
            String refusal = Chart.refusal(Chart.set("authService.rateLimit." + key, 0));
            assertTrue(refusal.contains(key), key + ": " + refusal);
        }
    }
}
