package io.deviceidentity.registration.passwords;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.deviceidentity.testsupport.ManagementInterface;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.PrometheusText;
import io.deviceidentity.overload.BcryptWork;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.PausableHasher;
import io.deviceidentity.registration.support.SmallBcryptBulkhead;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/** Registration's own bcrypt bulkhead is bounded: past its thread and queue, work is refused at once. */
@QuarkusTest
@TestProfile(SmallBcryptBulkhead.class)
class BcryptBulkheadTest {

    private static final String PATH = "/v1/devices/{id}";

    @Inject
    PausableHasher hasher;

    @Inject
    @BcryptWork Lane executor;

    @Test
    void withItsBcryptThreadBusyAndItsQueueFullARegistrationIs503OverloadAndWritesNothing() throws Exception {
        assertEquals(1, executor.concurrency());
        assertEquals(1, executor.queueCapacity());
        String prefix = uniquePrefix("bulkhead");
        PausableHasher.Pause pause = hasher.pauseNextHash();
        CompletableFuture<Response> running = CompletableFuture.supplyAsync(
                () -> api().body(passwordBody("running-padded-to-22-c")).put(PATH, prefix + "running"));
        CompletableFuture<Response> queued = null;
        Response refused;
        try {
            assertTrue(pause.awaitHashInProgress(10), "the first registration never started hashing");
            queued = CompletableFuture.supplyAsync(() -> api().body(passwordBody("queued-padded-to-22-ch")).put(PATH, prefix + "queued"));
            awaitQueued();

            refused = api().body(passwordBody("refused-padded-to-22-c")).put(PATH, prefix + "refused");
        } finally {
            pause.release();
        }
        assertEquals(503, refused.statusCode());
        assertEquals("overload", refused.jsonPath().getString("reason"));
        assertNotNull(refused.header("Retry-After"));
        assertTrue(Database.row(prefix + "refused").isEmpty(), "a refused registration was stored");

        assertEquals(201, running.get(10, TimeUnit.SECONDS).statusCode());
        assertEquals(201, queued.get(10, TimeUnit.SECONDS).statusCode());
        assertEquals(2, Database.countWithPrefix(prefix));
    }

    /** Waits until the second registration's hash sits in the executor's one queue slot. */
    private void awaitQueued() throws InterruptedException {
        for (int i = 0; i < 100; i++) {
            if (PrometheusText.sum(ManagementInterface.metrics(), "identity_bcrypt_queue_depth") >= 1) {
                return;
            }
            Thread.sleep(100);
        }
        throw new AssertionError("the second registration never reached the bcrypt queue");
    }
}
