package io.deviceidentity.auth.warmup;

import static io.deviceidentity.auth.support.Emqx.authnBody;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.HashMap;
import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.PackagedAppOnTestStack;
import io.deviceidentity.auth.support.PrometheusScrape;
import io.deviceidentity.readiness.SelfRequests;
import io.deviceidentity.testsupport.ManagementInterface;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * A JVM pod sends real requests to its own listener before it reports ready (the JIT compiled the request
 * path during the first storm instead), and they are nobody's outcomes: readiness waits for all of them, none is
 * counted in the outcome metric, and a request that merely names the warm-up header without this process's token is
 * counted like any other.
 */
@QuarkusTest
@WithTestResource(SelfRequestsWarmUpTest.WarmingInBackground.class)
class SelfRequestsWarmUpTest {

    static final int SELF_REQUESTS = 48;

    public static class WarmingInBackground implements QuarkusTestResourceLifecycleManager {
        @Override
        public Map<String, String> start() {
            Map<String, String> config = new HashMap<>(new PackagedAppOnTestStack().start());
            config.put("identity.readiness.warm-up-in-background", "true");
            config.put("identity.readiness.self-requests", String.valueOf(SELF_REQUESTS));
            config.put("identity.readiness.self-request-connections", "3");
            return config;
        }

        @Override
        public void stop() {
            ManagementInterface.forget();
        }
    }

    @Inject
    SelfRequests selfRequests;

    @Test
    void readinessWaitsForEverySelfRequestAndNoneIsCountedAsAnOutcome() throws Exception {
        long until = System.nanoTime() + 120_000_000_000L;
        Response ready = ManagementInterface.given().get("/q/health/ready");
        while (ready.statusCode() != 200 && System.nanoTime() < until) {
            Thread.sleep(100);
            ready = ManagementInterface.given().get("/q/health/ready");
        }
        assertEquals(200, ready.statusCode(), ready.asString());
        assertEquals(SELF_REQUESTS, selfRequests.answered(), "every self-request answered before readiness");
        assertEquals(0.0, PrometheusScrape.sum("identity_authn_outcomes_total"), "self-requests are not outcomes");
        assertEquals(0.0, PrometheusScrape.sum("identity_authz_outcomes_total"), "self-requests are not outcomes");

        Response forged = given().contentType("application/json").header("X-Identity-Warm-Up", "0".repeat(32))
                .body(authnBody(uniqueId("forged-warm-up"), "", "some-password-of-22-chars")).post("/mqtt/authn");
        assertEquals(200, forged.statusCode(), forged.asString());
        assertEquals("deny", forged.jsonPath().getString("result"));
        assertEquals(1.0, PrometheusScrape.sum("identity_authn_outcomes_total"),
                "a request with another token is an outcome like any other");
        assertTrue(selfRequests.answered() == SELF_REQUESTS, "no self-request after readiness");
    }
}
