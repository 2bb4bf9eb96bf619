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

/** PgBouncer down: every request is a quick 503 backend_unavailable, the circuit opens, and the service recovers. */
@QuarkusTest
class DatabaseOutageTest {

    private static final String PATH = "/v1/devices/{id}";

    @Test
    void whilePgBouncerIsDownWritesAre503BackendUnavailableTheCircuitOpensAndNothingIsStored() throws Exception {
        String prefix = uniquePrefix("outage");
        List<String> messages = new ArrayList<>();
        LocalStack.run("pgbouncer-stop");
        try {
            for (int i = 0; i < 12; i++) {
                Response answer = api().body(passwordBody("outage-password")).put(PATH, prefix + i);
                assertEquals(503, answer.statusCode(), answer.asString());
                assertEquals("backend_unavailable", answer.jsonPath().getString("reason"));
                assertNotNull(answer.header("Retry-After"));
                messages.add(answer.jsonPath().getString("message"));
            }
            Response read = api().get(PATH, prefix + 0);
            assertEquals(503, read.statusCode());
            assertEquals("backend_unavailable", read.jsonPath().getString("reason"));
        } finally {
            LocalStack.run("pgbouncer-start");
        }
        // requestVolumeThreshold=10 at failureRatio 0.5: from the 11th failure on, answered without trying.
        assertTrue(messages.get(11).contains("circuit is open"), messages.toString());

        String recovered = prefix + "after";
        int status = 0;
        for (int attempt = 0; attempt < 60 && status != 201; attempt++) {
            Thread.sleep(250);
            status = api().body(passwordBody("after-outage")).put(PATH, recovered).statusCode();
        }
        assertEquals(201, status, "the service did not recover after PgBouncer came back");
        assertEquals(1, Database.countWithPrefix(prefix), "a write refused during the outage was stored");
    }
}
