package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.PausableHasher;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * The incident's first trap: bcrypt inside the transaction, holding a pooled connection for the whole hash. Here a
 * registration is stopped in the middle of its hash and the service's pool is inspected.
 */
@QuarkusTest
class HashingHoldsNoConnectionTest {

    private static final String PATH = "/v1/devices/{id}";

    @Inject
    PausableHasher hasher;

    @Inject
    AgroalDataSource pool;

    @Test
    void whileAPasswordIsBeingHashedTheRequestHoldsNoPooledConnectionAndHasWrittenNothing() throws Exception {
        assertPoolMetricSeesAHeldConnection();
        String id = uniqueId("hash-outside");
        PausableHasher.Pause pause = hasher.pauseNextHash();
        CompletableFuture<Response> put = CompletableFuture.supplyAsync(
                () -> api().body(passwordBody("hashed-outside-padded-")).put(PATH, id));
        try {
            assertTrue(pause.awaitHashInProgress(10), "the registration never started hashing");

            assertEquals(0, pool.getMetrics().activeCount(), "a pooled connection is held during the hash");
            assertTrue(Database.row(id).isEmpty(), "the row was written before the hash");
        } finally {
            pause.release();
        }
        assertEquals(201, put.get(10, TimeUnit.SECONDS).statusCode());
        assertTrue(Bcrypt.matches("hashed-outside-padded-", Database.row(id).orElseThrow().passwordHash()));
    }

    @Test
    void aRegistrationWhoseDeadlinePassesDuringItsHashAnswers503DeadlineAndWritesNothing() throws Exception {
        String id = uniqueId("late-hash");
        PausableHasher.Pause pause = hasher.pauseNextHash();
        CompletableFuture<Response> put = CompletableFuture.supplyAsync(
                () -> api().body(passwordBody("too-late-padded-to-22-")).put(PATH, id));
        Response answer;
        try {
            assertTrue(pause.awaitHashInProgress(10), "the registration never started hashing");
            // The default deadline is 4 s: the answer comes while the hash is still paused.
            answer = put.get(10, TimeUnit.SECONDS);
        } finally {
            pause.release();
        }
        assertEquals(503, answer.statusCode());
        assertEquals("deadline", answer.jsonPath().getString("reason"));
        assertTrue(answer.header("Retry-After") != null, "503 without Retry-After");
        // The hash finishes after the answer; its result must not be written.
        TimeUnit.MILLISECONDS.sleep(500);
        assertTrue(Database.row(id).isEmpty(), "a registration answered 503 was written");
    }

    /** Guards the assertion above against a metric that always reads 0. */
    private void assertPoolMetricSeesAHeldConnection() throws Exception {
        assertTrue(pool.getConfiguration().metricsEnabled(), "Agroal metrics are off");
        try (Connection held = pool.getConnection()) {
            assertEquals(1, pool.getMetrics().activeCount());
        }
        assertEquals(0, pool.getMetrics().activeCount());
    }
}
