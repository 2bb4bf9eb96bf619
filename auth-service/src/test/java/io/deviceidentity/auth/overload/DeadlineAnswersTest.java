package io.deviceidentity.auth.overload;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/** A check that cannot finish before the request deadline is answered 503 deadline when the deadline passes. */
@QuarkusTest
@TestProfile(ShortDeadlineProfile.class)
class DeadlineAnswersTest {

    @Inject
    MeterRegistry registry;

    @Test
    void checkOutlivingTheDeadlineIsAnswered503DeadlineWithoutWaitingForTheHash() {
        String id = uniqueId("slow");
        // cost 16: seconds of bcrypt, far beyond the profile's 1.5 s deadline
        String password = device(id)
                .passwordHash(ShortDeadlineProfile.COST_16_HASH, ShortDeadlineProfile.SLOW_PASSWORD).store();
        // Warm the request path (first pooled connection, JSON, logging) until it fits the deadline, so the
        // answer below is the deadline's, not start-up's.
        int warm = 0;
        for (int attempt = 0; attempt < 50 && warm != 200; attempt++) {
            warm = authn(uniqueId("warm-up"), "x").statusCode();
        }
        assertEquals(200, warm, "an unknown device could not be answered within the 1.5 s deadline even once");
        long hashesBefore = finishedHashes();

        Response answer = authn(id, password);

        assertEquals(503, answer.statusCode(), answer.asString());
        assertEquals("deadline", answer.jsonPath().getString("reason"));
        assertNotNull(answer.header("Retry-After"));
        assertEquals(hashesBefore, finishedHashes(), "the answer waited for the hash instead of the deadline");
        // The hash count is the proof that the answer did not wait for the hash; how many milliseconds it took is
        // no verdict on a busy machine.
    }

    private long finishedHashes() {
        return registry.find(MetricNames.BCRYPT_DURATION).timer().count();
    }
}
