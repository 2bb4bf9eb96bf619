package io.deviceidentity.auth.overload;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.deviceidentity.testsupport.Faults;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * Real database faults under the running service: PgBouncer SIGKILLed, PostgreSQL stopped with {@code -m immediate}.
 * Devices that need the database are answered 503 (never another 5xx, never a wrong allow), and after the repair
 * the same process allows them again, without a restart. No timing is asserted.
 */
@QuarkusTest
class DatabaseFaultsTest {

    @Test
    void pgbouncerKilledIsDetectedAndRecoveredWithoutARestart() throws Exception {
        duringFault(Faults::killPgBouncer, "pgbouncer-kill");
    }

    @Test
    void postgresStoppedImmediatelyIsDetectedAndRecoveredWithoutARestart() throws Exception {
        duringFault(Faults::crashPostgres, "postgres-crash");
    }

    private static void duringFault(Runnable fault, String name) throws Exception {
        List<Response> during = new ArrayList<>();
        int recovered = 0;
        fault.run();
        try {
            for (int i = 0; i < 20 && during.stream().noneMatch(r -> r.statusCode() == 503); i++) {
                during.add(authn(uniqueId(name + "-probe"), "x"));
            }
        } finally {
            Faults.repair();
            long until = System.nanoTime() + 60_000_000_000L;
            while (recovered != 200 && System.nanoTime() < until) {
                recovered = authn(uniqueId("recovery-probe"), "x").statusCode();
                if (recovered != 200) {
                    Thread.sleep(250);
                }
            }
        }
        for (Response answer : during) {
            assertTrue(answer.statusCode() == 200 || answer.statusCode() == 503,
                    name + ": answered " + answer.statusCode() + " " + answer.asString());
            if (answer.statusCode() == 200) {
                assertEquals("deny", answer.jsonPath().getString("result"), "an unknown device was allowed");
            }
        }
        assertTrue(during.stream().anyMatch(r -> r.statusCode() == 503), name + " was never answered with a 503");
        assertEquals(200, recovered, name + ": no answer from the database after the repair");
        String id = uniqueId(name + "-after");
        String password = device(id).store();
        assertEquals("allow", authn(id, password).jsonPath().getString("result"));
    }
}
