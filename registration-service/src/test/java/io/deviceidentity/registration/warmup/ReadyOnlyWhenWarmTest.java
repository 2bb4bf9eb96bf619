package io.deviceidentity.registration.warmup;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static io.restassured.RestAssured.get;
import static org.junit.jupiter.api.Assertions.assertEquals;

import io.deviceidentity.testsupport.ManagementInterface;
import org.junit.jupiter.api.Test;

import io.deviceidentity.registration.support.DatabaseBehindGate;
import io.deviceidentity.testsupport.GatedTcpProxy;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * A service is ready only when it can answer. registration-service starts with its PgBouncer
 * unreachable: alive, not ready, the readiness answer naming the warm-up step it waits for. Once the database is
 * reachable, readiness turns UP after the warm-up, and the very first requests after it are answered as any later
 * one: 201 for a registration (bcrypt and the write), 200 for reading it back, 404 for an unknown device; never a 503.
 */
@QuarkusTest
@WithTestResource(DatabaseBehindGate.class)
class ReadyOnlyWhenWarmTest {

    private static final String PATH = "/v1/devices/{clientId}";

    @Test
    void notReadyUntilWarmAndTheFirstRequestsAfterReadinessAreAnswered() throws Exception {
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

        String id = uniqueId("first-after-ready");
        Response created = api().body(passwordBody("first-password-after-ready")).put(PATH, id);
        assertEquals(201, created.statusCode(), "first registration after readiness: " + created.asString());
        Response read = api().get(PATH, id);
        assertEquals(200, read.statusCode(), read.asString());
        Response unknown = api().get(PATH, uniqueId("never-registered"));
        assertEquals(404, unknown.statusCode(), unknown.asString());
    }
}
