package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.LocalStack;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/** PgBouncer down: every request is a 503 backend_unavailable, the circuit opens, nothing is stored, and it recovers. */
@QuarkusTest
class DatabaseOutageTest {

    private static final String PATH = "/v1/devices/{id}";

    @Test
    void whilePgBouncerIsDownWritesAre503BackendUnavailableTheCircuitOpensAndNothingIsStored() throws Exception {
        String prefix = uniquePrefix("outage");
        List<Response> writes = new ArrayList<>();
        Response read;
        int afterRecovery;
        LocalStack.run("pgbouncer-stop");
        try {
            // More failures than the breaker's requestVolumeThreshold (10), so it must open whatever its history.
            for (int i = 0; i < 12; i++) {
                writes.add(api().body(passwordBody("outage-password-padded")).put(PATH, prefix + i));
            }
            read = api().get(PATH, prefix + 0);
        } finally {
            LocalStack.run("pgbouncer-start");
            // Recover before asserting anything, so that a failure here never leaves the next test a broken pool.
            afterRecovery = awaitRecovery(prefix + "after");
        }

        for (Response write : writes) {
            assertEquals(503, write.statusCode(), write.asString());
            assertEquals("backend_unavailable", write.jsonPath().getString("reason"));
            assertNotNull(write.header("Retry-After"));
        }
        assertTrue(writes.stream().anyMatch(write -> write.jsonPath().getString("message").contains("circuit is open")),
                "the circuit never opened");
        assertEquals(503, read.statusCode());
        assertEquals("backend_unavailable", read.jsonPath().getString("reason"));
        assertEquals(201, afterRecovery, "the service did not recover after PgBouncer came back");
        assertEquals(1, Database.countWithPrefix(prefix), "a write refused during the outage was stored");
    }

    /** Status of a PUT retried until it succeeds (the circuit's test delay is 1 s), for at most 15 s. */
    private static int awaitRecovery(String clientId) throws InterruptedException {
        int status = 0;
        for (int attempt = 0; attempt < 60 && status != 201; attempt++) {
            Thread.sleep(250);
            status = api().body(passwordBody("after-outage-padded-to")).put(PATH, clientId).statusCode();
        }
        return status;
    }
}
