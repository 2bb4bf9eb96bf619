package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.sql.Connection;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.ParallelClient;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;

/** A pool with nothing to lend is this service's overload, not a database failure: it must not open the circuit. */
@QuarkusTest
class PoolSaturationTest {

    private static final String PATH = "/v1/devices/{id}";

    @Inject
    AgroalDataSource pool;

    @Inject
    CircuitBreakerMaintenance circuitBreakers;

    @TestHTTPResource("/")
    URI base;

    @Test
    void aBurstThatFindsThePoolEmptyIs503OverloadWritesNothingAndLeavesTheCircuitClosed() throws Exception {
        String prefix = uniquePrefix("pool-empty");
        List<ParallelClient.Result> results;
        List<Connection> heldByTheTest = new ArrayList<>();
        try (ParallelClient client = new ParallelClient(base, Duration.ofSeconds(15), 16)) {
            while (heldByTheTest.size() < pool.getConfiguration().connectionPoolConfiguration().maxSize()) {
                heldByTheTest.add(pool.getConnection());
            }
            // More failures than the breaker's requestVolumeThreshold (10): counted, they would open it.
            results = client.putAll(12, i -> prefix + i, i -> passwordBody("no-connection-padded-t"));
        } finally {
            for (Connection connection : heldByTheTest) {
                connection.close();
            }
        }
        ObjectMapper json = new ObjectMapper();
        for (ParallelClient.Result result : results) {
            assertEquals(503, result.status(), result.clientId() + ": " + result.body());
            assertEquals("overload", json.readTree(result.body()).path("reason").asText(), result.body());
        }
        assertEquals(0, Database.countWithPrefix(prefix));
        assertEquals(CircuitBreakerState.CLOSED, circuitBreakers.currentState("device-store-save"));
        api().body(passwordBody("pool-free-again-padded")).put(PATH, prefix + "after").then().statusCode(201);
    }
}
