package io.deviceidentity.auth.ratelimit;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/** One device hammering alone is answered 429 rate_limited, and no bcrypt is spent on those answers. */
@QuarkusTest
class DeviceRateLimitTest {

    @Inject
    MeterRegistry registry;

    @Test
    void aDeviceGuessingPasswordsGets429WithoutBcryptBeingSpent() {
        String id = uniqueId("hammer");
        device(id).password("right").store();
        long hashesBefore = hashes();

        int allowed = 0;
        int denied = 0;
        int limited = 0;
        long start = System.nanoTime();
        for (int attempt = 0; attempt < 30; attempt++) {
            // Wrong passwords only: a right one would be verified once and then allowed by the fast path, which takes
            // no attempt (FastPathTest).
            Response answer = authn(id, "wrong-" + attempt);
            if (answer.statusCode() == 429) {
                limited++;
                assertEquals("rate_limited", answer.jsonPath().getString("reason"));
                assertTrue(Integer.parseInt(answer.header("Retry-After")) >= 1);
                assertTrue(answer.contentType().startsWith("application/json"));
            } else {
                assertEquals(200, answer.statusCode());
                if ("allow".equals(answer.jsonPath().getString("result"))) {
                    allowed++;
                } else {
                    denied++;
                }
            }
        }

        // The default burst is 10 attempts; the bucket refills one every 6 s, so a slow run may earn a few more.
        long refilled = (System.nanoTime() - start) / 6_000_000_000L;
        int answered = allowed + denied;
        assertTrue(answered >= 10 && answered <= 10 + refilled, answered + " answered, " + refilled + " refilled");
        assertEquals(30 - answered, limited);
        assertEquals(answered, hashes() - hashesBefore, "only answered attempts cost a bcrypt");
    }

    private long hashes() {
        return registry.find(MetricNames.BCRYPT_DURATION).timer().count();
    }
}
