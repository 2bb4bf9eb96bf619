package io.deviceidentity.auth.ratelimit;

import static io.deviceidentity.auth.support.Emqx.authnFrom;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * Guessing one device's password from one address: the first 10 guesses cost a bcrypt each, every guess after that is
 * denied without one, and every answer is 200 deny (which ends EMQX's chain), never 429.
 */
@QuarkusTest
@TestProfile(HourlyBudgets.class)
class GuessingBudgetTest {

    @Inject
    MeterRegistry registry;

    @Test
    void guessesBeyondTheBudgetAreDeniedWithoutBcrypt() {
        String id = uniqueId("hammer");
        device(id).password("right").store();
        long hashesBefore = hashes();

        for (int attempt = 0; attempt < 30; attempt++) {
            Response answer = authnFrom("198.18.0.77", id, "wrong-" + attempt);
            assertEquals(200, answer.statusCode(), answer.asString());
            assertEquals("deny", answer.jsonPath().getString("result"));
        }

        assertEquals(10, hashes() - hashesBefore, "only the budget's 10 guesses cost a bcrypt");
    }

    private long hashes() {
        return registry.find(MetricNames.BCRYPT_DURATION).timer().count();
    }
}
