package io.deviceidentity.overload;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;

import io.deviceidentity.credentials.CheckCost;
import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** The bcrypt lane's gauges keep reading the lane after a garbage collection: Micrometer holds their objects weakly. */
class BcryptMetersTest {

    private final SimpleMeterRegistry registry = new SimpleMeterRegistry();
    private Lane lane;

    @AfterEach
    void stop() {
        lane.shutdown();
    }

    @Test
    void theSchedIdleThreadGaugeStillCountsTheThreadsAfterACollection() throws Exception {
        Assumptions.assumeTrue(Files.exists(Path.of("/proc/thread-self/stat")), "Linux only");
        lane = Lanes.bcrypt(TestOverloadConfig.defaults().withIdlePriority(true), registry, new DeadlineTimer(),
                System::nanoTime);
        // A SCHED_IDLE thread on a saturated machine runs only in the gaps: the bound is a hang guard, not a limit.
        lane.submit(Deadline.after(System.nanoTime(), Duration.ofMinutes(5)), CheckCost.UNIT, () -> true)
                .get(2, TimeUnit.MINUTES);

        System.gc();

        assertEquals(1.0, registry.get(MetricNames.BCRYPT_IDLE_THREADS).gauge().value());
        assertEquals(1.0, registry.get(MetricNames.BCRYPT_CONCURRENCY).gauge().value());
    }
}
