package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Duration;

import org.eclipse.microprofile.health.HealthCheckResponse;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.deviceidentity.readiness.BcryptAdmission;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** Readiness says whether the bcrypt lane, while idle, would admit a cost-10 check. */
class BcryptAdmissionReadinessTest {

    private BcryptExecutor executor;

    @AfterEach
    void stop() {
        executor.shutdown();
    }

    @Test
    void aReplicaWhoseIdleBcryptLaneRefusesACostTenCheckIsNotReady() {
        // One nominal hash (80 ms) cannot fit a 50 ms deadline: every password that needs a hash would get a 503.
        executor = new BcryptExecutor(TestOverloadConfig.defaults().withDeadline(Duration.ofMillis(50)),
                new SimpleMeterRegistry(), new DeadlineTimer());

        HealthCheckResponse answer = new BcryptAdmission(executor).call();

        assertEquals(HealthCheckResponse.Status.DOWN, answer.getStatus());
        assertEquals("bcrypt-admission", answer.getName());
    }

    @Test
    void aReplicaWhoseIdleBcryptLaneAdmitsIsReady() {
        executor = new BcryptExecutor(TestOverloadConfig.defaults(), new SimpleMeterRegistry(), new DeadlineTimer());

        assertEquals(HealthCheckResponse.Status.UP, new BcryptAdmission(executor).call().getStatus());
    }
}
