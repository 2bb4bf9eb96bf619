package io.deviceidentity.auth.overload;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.TestStack;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * PgBouncer goes away: every answer is a quick 503 backend_unavailable (the circuit opens and answers without
 * trying the database), and once PgBouncer is back the same running service allows devices again.
 */
@QuarkusTest
class BackendUnavailableTest {

    @Test
    void pgbouncerDownIs503BackendUnavailableAndTheServiceRecoversWhenItReturns() throws Exception {
        String id = uniqueId("outage");
        String password = device(id).store();
        authn(id, password).then().statusCode(200);

        List<String> messages = new ArrayList<>();
        TestStack.stopPgBouncer();
        try {
            for (int i = 0; i < 15; i++) {
                Response answer = authn(uniqueId("outage-probe"), "x");
                assertEquals(503, answer.statusCode(), answer.asString());
                assertEquals("backend_unavailable", answer.jsonPath().getString("reason"));
                assertTrue(Integer.parseInt(answer.header("Retry-After")) >= 1);
                messages.add(answer.jsonPath().getString("message"));
            }
        } finally {
            TestStack.startPgBouncer();
        }
        assertTrue(messages.stream().anyMatch(m -> m.contains("circuit is open")),
                "the breaker never opened: " + messages);

        long until = System.nanoTime() + 30_000_000_000L;
        int status = 0;
        while (System.nanoTime() < until) {
            Response probe = authn(uniqueId("recovery-probe"), "x");
            status = probe.statusCode();
            if (status == 200) {
                break;
            }
            Thread.sleep(250);
        }
        assertEquals(200, status, "no recovery within 30 s of PgBouncer's restart");
        authn(id, password).then().statusCode(200);
        assertEquals("allow", authn(id, password).jsonPath().getString("result"));
    }
}
