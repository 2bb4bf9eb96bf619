package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.deviceidentity.registration.support.Database;
import io.deviceidentity.testsupport.Faults;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * Real database faults under the running service, without restarting it: PgBouncer SIGKILLed (connections reset,
 * no clean shutdown) and PostgreSQL stopped with {@code -m immediate} (crash recovery on start). During the fault
 * every answer is a 201 or a 503 (never another 5xx), the fault is detected (a 503 with a reason), every
 * acknowledged write is stored; after the repair the same process
 * stores devices again. No timing is asserted: recovery is awaited for a generous bound.
 */
@QuarkusTest
class DatabaseFaultsTest {

    private static final String PATH = "/v1/devices/{id}";

    @Test
    void pgbouncerKilledIsDetectedAndRecoveredWithoutARestart() throws Exception {
        duringFault(Faults::killPgBouncer, "pgbouncer-kill");
    }

    @Test
    void postgresStoppedImmediatelyIsDetectedAndRecoveredWithoutARestart() throws Exception {
        duringFault(Faults::crashPostgres, "postgres-crash");
    }

    private static void duringFault(Runnable fault, String name) throws Exception {
        String prefix = uniquePrefix(name);
        assertEquals(201, put(prefix + "before").statusCode());
        List<Response> during = new ArrayList<>();
        List<String> acknowledged = new ArrayList<>(List.of(prefix + "before"));
        List<String> refused = new ArrayList<>();
        int recovered;
        fault.run();
        try {
            // Until the fault is seen as a 503 (the first request may already be in flight on a live connection).
            for (int i = 0; i < 20 && during.stream().noneMatch(r -> r.statusCode() == 503); i++) {
                String id = prefix + i;
                Response answer = put(id);
                during.add(answer);
                (answer.statusCode() == 201 ? acknowledged : refused).add(id);
            }
        } finally {
            Faults.repair();
            recovered = awaitRecovery(prefix + "after");
        }
        acknowledged.add(prefix + "after");

        for (Response answer : during) {
            assertTrue(answer.statusCode() == 201 || answer.statusCode() == 503,
                    name + ": answered " + answer.statusCode() + " " + answer.asString());
        }
        Response detected = during.stream().filter(r -> r.statusCode() == 503).findFirst().orElse(null);
        assertTrue(detected != null, name + " was never answered with a 503");
        assertFalse(detected.jsonPath().getString("reason").isBlank());
        assertEquals(201, recovered, name + ": the running service did not store a device after the repair");
        for (String id : acknowledged) {
            assertTrue(Database.row(id).isPresent(), "acknowledged " + id + " is missing");
        }
        // A 503 does not promise that nothing was committed (the answer may be lost after the commit), so refused
        // ids may be present; the primary key keeps every id to one row.
        int rows = Database.countWithPrefix(prefix);
        assertTrue(rows >= acknowledged.size() && rows <= acknowledged.size() + refused.size(), rows + " rows");
    }

    private static Response put(String id) {
        return api().body(passwordBody("fault-password-padded-")).put(PATH, id);
    }

    /** Status of a PUT retried until it is a 201, for at most 60 s (the breaker's test delay is 1 s). */
    private static int awaitRecovery(String id) throws InterruptedException {
        int status = 0;
        long until = System.nanoTime() + 60_000_000_000L;
        while (status != 201 && System.nanoTime() < until) {
            status = put(id).statusCode();
            if (status != 201) {
                Thread.sleep(250);
            }
        }
        return status;
    }
}
