package io.deviceidentity.auth.warmup;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static io.restassured.RestAssured.get;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.deviceidentity.testsupport.ManagementInterface;
import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.DatabaseBehindGate;
import io.deviceidentity.testsupport.GatedTcpProxy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * A service is ready only when it can answer (the first authn after {@code make up} was a 503).
 * It starts with its PgBouncer unreachable: alive, not ready, the readiness answer naming the warm-up step it waits
 * for. Once the database is reachable, readiness turns UP after the warm-up, and the very first requests after it are
 * answered as any later one: 200 allow for a registered device (a cold check: read and bcrypt), 200 deny for an
 * unknown one; never a 503.
 */
@QuarkusTest
@WithTestResource(DatabaseBehindGate.class)
class ReadyOnlyWhenWarmTest {

    @Test
    void notReadyUntilWarmAndTheFirstRequestsAfterReadinessAreAnswered() throws Exception {
        String id = uniqueId("first-after-ready");
        String password = device(id).store();

        for (int i = 0; i < 5; i++) {
            Response ready = ManagementInterface.given().get("/q/health/ready");
            assertEquals(503, ready.statusCode(), "ready before its database was reachable: " + ready.asString());
            assertEquals("DOWN", ready.jsonPath().getString("checks.find { it.name == 'warm-up' }.status"),
                    ready.asString());
            assertEquals("pool", ready.jsonPath().getString("checks.find { it.name == 'warm-up' }.data.step"),
                    ready.asString());
            ManagementInterface.given().get("/q/health/live").then().statusCode(200);
            Thread.sleep(300);
        }

        GatedTcpProxy.openTestGate();
        long until = System.nanoTime() + 60_000_000_000L;
        Response ready = ManagementInterface.given().get("/q/health/ready");
        while (ready.statusCode() != 200 && System.nanoTime() < until) {
            Thread.sleep(100);
            ready = ManagementInterface.given().get("/q/health/ready");
        }
        assertEquals(200, ready.statusCode(), "not ready 60 s after the database became reachable: " + ready.asString());

        Response first = authn(id, password);
        assertEquals(200, first.statusCode(), "first authn after readiness: " + first.asString());
        assertEquals("allow", first.jsonPath().getString("result"));
        Response unknown = authn(uniqueId("never-registered"), "some-password");
        assertEquals(200, unknown.statusCode(), unknown.asString());
        assertEquals("deny", unknown.jsonPath().getString("result"));
    }
}
