package io.deviceidentity.auth.overload;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
        // cost 15: seconds of bcrypt, far beyond the profile's 300 ms deadline
        String password = device(id).cost(15).store();
        // Warm the request path (first pooled connection, JSON, logging) until it fits the 300 ms deadline, so the
        // timing below is the deadline's, not start-up's.
        int warm = 0;
        for (int attempt = 0; attempt < 50 && warm != 200; attempt++) {
            warm = authn(uniqueId("warm-up"), "x").statusCode();
        }
        assertEquals(200, warm, "an unknown device could not be answered within 300 ms even once");
        long hashesBefore = finishedHashes();

        long start = System.nanoTime();
        Response answer = authn(id, password);
        long millis = (System.nanoTime() - start) / 1_000_000;

        assertEquals(503, answer.statusCode(), answer.asString());
        assertEquals("deadline", answer.jsonPath().getString("reason"));
        assertNotNull(answer.header("Retry-After"));
        assertEquals(hashesBefore, finishedHashes(), "the answer waited for the hash instead of the deadline");
        assertTrue(millis < 300 + 3000, "answered after " + millis + " ms");
    }

    private long finishedHashes() {
        return registry.find(MetricNames.BCRYPT_DURATION).timer().count();
    }
}
