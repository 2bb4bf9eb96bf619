package io.deviceidentity.auth.overload;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.MetricNames;
import io.deviceidentity.testsupport.ManagementInterface;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * A row dearer than the service verifies (identity.auth.max-check-units, 16 cost-10 hashes by default) is denied
 * without a hash, and the bcrypt lane reports in readiness whether it would admit a check.
 */
@QuarkusTest
class ExpensiveRowsTest {

    @Inject
    MeterRegistry registry;

    @Test
    void aRowWrittenAboveTheMaximumCostIsDeniedWithoutAHashAndCountedByItsReason() {
        String id = uniqueId("cost-16");
        // Written straight into the table, around registration's import bounds: 64 units, seconds of one thread.
        String password = device(id)
                .passwordHash(ShortDeadlineProfile.COST_16_HASH, ShortDeadlineProfile.SLOW_PASSWORD).store();
        long hashesBefore = hashes();
        double deniedBefore = denied("cost_above_limit");

        Response answer = authn(id, password);

        assertEquals(200, answer.statusCode(), answer.asString());
        assertEquals("deny", answer.jsonPath().getString("result"), "its correct password, but no hash is run");
        assertEquals(hashesBefore, hashes(), "no bcrypt ran");
        assertEquals(deniedBefore + 1, denied("cost_above_limit"));
    }

    @Test
    void readinessSaysWhetherTheIdleBcryptLaneAdmitsACheck() {
        Response ready = ManagementInterface.given().get("/q/health/ready");

        assertEquals("UP", ready.jsonPath().getString("checks.find { it.name == 'bcrypt-admission' }.status"),
                ready.asString());
        assertEquals(0.0, registry.get(MetricNames.BCRYPT_REFUSING_IDLE).gauge().value());
    }

    private long hashes() {
        return registry.find(MetricNames.BCRYPT_DURATION).timer().count();
    }

    private double denied(String reason) {
        Counter counter = registry.find(MetricNames.AUTHN_OUTCOMES).tag(MetricNames.TAG_RESULT, "deny")
                .tag(MetricNames.TAG_REASON, reason).counter();
        return counter == null ? 0 : counter.count();
    }
}
