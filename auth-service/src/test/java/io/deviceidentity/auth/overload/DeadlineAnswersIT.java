package io.deviceidentity.auth.overload;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.PackagedAppOnTestStack;
import io.deviceidentity.auth.support.PrometheusScrape;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * The packaged artifact, started with a 1.5 s deadline (ShortDeadlineProfile's overrides are passed to it), answers
 * a check that needs seconds of bcrypt with 503 deadline when the deadline passes, before the hash finishes. The
 * finished-hash count comes from /q/metrics, since nothing can be injected into a separate process.
 */
@QuarkusIntegrationTest
@TestProfile(ShortDeadlineProfile.class)
@WithTestResource(PackagedAppOnTestStack.class)
class DeadlineAnswersIT {

    private static final String FINISHED_HASHES = "identity_bcrypt_duration_seconds_count";

    @Test
    void checkOutlivingTheDeadlineIsAnswered503DeadlineWithoutWaitingForTheHash() {
        String id = uniqueId("slow-it");
        // cost 16: seconds of bcrypt, far beyond the profile's 1.5 s deadline
        String password = device(id)
                .passwordHash(ShortDeadlineProfile.COST_16_HASH, ShortDeadlineProfile.SLOW_PASSWORD).store();
        int warm = 0;
        for (int attempt = 0; attempt < 50 && warm != 200; attempt++) {
            warm = authn(uniqueId("warm-up-it"), "x").statusCode();
        }
        assertEquals(200, warm, "an unknown device could not be answered within the 1.5 s deadline even once");
        double hashesBefore = PrometheusScrape.sum(FINISHED_HASHES);

        Response answer = authn(id, password);

        assertEquals(503, answer.statusCode(), answer.asString());
        assertEquals("deadline", answer.jsonPath().getString("reason"));
        assertNotNull(answer.header("Retry-After"));
        assertEquals(hashesBefore, PrometheusScrape.sum(FINISHED_HASHES),
                "the answer waited for the hash instead of the deadline");
        // The hash count is the proof that the answer did not wait for the hash; how many milliseconds it took is
        // no verdict on a busy machine.
    }
}
