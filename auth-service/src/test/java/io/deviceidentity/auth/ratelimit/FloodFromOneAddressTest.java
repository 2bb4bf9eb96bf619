package io.deviceidentity.auth.ratelimit;

import static io.deviceidentity.auth.support.Emqx.authnFrom;
import static io.deviceidentity.auth.support.Emqx.decidedFrom;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.StoredRows;
import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * A flood of invented client ids from one address, with a budget of 20 failures per address (and hour): once it is spent, the
 * address's unknown ids are denied before the database read, while devices known to exist, behind the same address,
 * still get their fast path, and other addresses are untouched. (On the old code every invented id cost a read.)
 */
@QuarkusTest
@TestProfile(HourlyBudgets.class)
class FloodFromOneAddressTest {

    @Inject
    MeterRegistry registry;

    @Test
    void anAddressOverItsBudgetCostsNoReadsAndKnownDevicesBehindItStillGetIn() throws Exception {
        String flooder = "198.18.9.9";
        String neighbour = uniqueId("neighbour");
        String password = device(neighbour).store();
        assertEquals("allow", decidedFrom(flooder, neighbour, password).jsonPath().getString("result"));
        StoredRows.awaitVerifier(neighbour, "test-1");

        for (int i = 0; i < 20; i++) {
            assertEquals("deny", authnFrom(flooder, uniqueId("invented"), "x").jsonPath().getString("result"));
        }
        double exhaustedBefore = outcomes("source_exhausted");
        for (int i = 0; i < 100; i++) {
            Response answer = authnFrom(flooder, uniqueId("invented"), "x");
            assertEquals(200, answer.statusCode());
            assertEquals("deny", answer.jsonPath().getString("result"));
        }

        assertEquals(exhaustedBefore + 100, outcomes("source_exhausted"), "denied before the read, all of them");
        assertEquals("allow", authnFrom(flooder, neighbour, password).jsonPath().getString("result"),
                "a device known to exist, behind the same address, keeps its fast path");
        String elsewhere = uniqueId("elsewhere");
        String other = device(elsewhere).store();
        assertEquals("allow", decidedFrom("198.18.9.10", elsewhere, other).jsonPath().getString("result"));
        assertEquals("deny", authnFrom("198.18.9.10", uniqueId("invented"), "x").jsonPath().getString("result"));
    }

    private double outcomes(String reason) {
        Counter counter = registry.find(MetricNames.AUTHN_OUTCOMES).tag(MetricNames.TAG_RESULT, "deny")
                .tag(MetricNames.TAG_REASON, reason).counter();
        return counter == null ? 0 : counter.count();
    }
}
