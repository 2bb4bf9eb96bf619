package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.deviceidentity.readiness.BcryptAdmission;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** Readiness says whether the bcrypt lane, while idle, would admit a cost-10 check. */
class BcryptAdmissionReadinessTest {

    private Lane executor;

    @AfterEach
    void stop() {
        executor.shutdown();
    }

    @Test
    void aReplicaWhoseIdleBcryptLaneAdmitsIsReady() {
        executor = Lanes.bcrypt(TestOverloadConfig.defaults(), new SimpleMeterRegistry(), new DeadlineTimer(),
                System::nanoTime);

        assertEquals(HealthCheckResponse.Status.UP, new BcryptAdmission(executor).call().getStatus());
    }
}
