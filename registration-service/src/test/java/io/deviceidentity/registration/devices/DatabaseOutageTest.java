package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;

import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.MetricSelector;
import io.deviceidentity.metrics.PrometheusText;
import io.deviceidentity.metrics.PrometheusText.Sample;
import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.LocalStack;
import io.deviceidentity.testsupport.ManagementInterface;
import io.quarkus.arc.Arc;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;
import io.smallrye.faulttolerance.api.CircuitBreakerMaintenance;
import io.smallrye.faulttolerance.api.CircuitBreakerState;

/**
 * PgBouncer down: every request is a 503 backend_unavailable, the writes' circuit opens (theirs alone: each database
 * method has its own breaker), nothing is stored, and it recovers.
 */
@QuarkusTest
class DatabaseOutageTest {

    private static final String PATH = "/v1/devices/{id}";
    /** The {@code method} tag of the write's fault-tolerance metrics. */
    private static final String SAVE_METHOD = "method=\"io.deviceidentity.registration.devices.DeviceStore.save\"";

    /**
     * The breakers of the application running in this JVM; null against the packaged artifact
     * ({@link DatabaseOutageIT}), which injects nothing, and whose breaker the answers and the metrics show.
     */
    private final CircuitBreakerMaintenance breakers = Arc.container() == null ? null
            : Arc.container().instance(CircuitBreakerMaintenance.class).get();

    @Test
    void whilePgBouncerIsDownWritesAre503BackendUnavailableTheirOwnCircuitOpensAndNothingIsStored() throws Exception {
        String prefix = uniquePrefix("outage");
        List<Response> writes = new ArrayList<>();
        Response read;
        // The store's bean, and with it its breakers, is built on first use.
        api().body(passwordBody("outage-password-padded")).put(PATH, uniqueId("outage-first")).then()
                .statusCode(201);
        List<CircuitBreakerState> save = changesOf("device-store-save");
        List<CircuitBreakerState> find = changesOf("credential-finder");
        List<CircuitBreakerState> revoke = changesOf("device-store-revoke");
        List<Sample> openGauge;
        int afterRecovery;
        LocalStack.run("pgbouncer-stop");
        try {
            // More failures than the breaker's requestVolumeThreshold (10), so it must open whatever its history.
            for (int i = 0; i < 12; i++) {
                writes.add(api().body(passwordBody("outage-password-padded")).put(PATH, prefix + i));
            }
            read = api().get(PATH, prefix + 0);
            MetricSelector closed = MetricSelector.parse("ft_circuitbreaker_state_current{" + SAVE_METHOD + ",state=\"closed\"}");
            openGauge = PrometheusText.samples(ManagementInterface.metrics()).stream().filter(closed::matches).toList();
        } finally {
            LocalStack.run("pgbouncer-start");
            // Recover before asserting anything, so that a failure here never leaves the next test a broken pool.
            afterRecovery = awaitRecovery(prefix + "after");
        }

        for (Response write : writes) {
            assertEquals(503, write.statusCode(), write.asString());
            assertEquals("backend_unavailable", write.jsonPath().getString("reason"));
            assertNotNull(write.header("Retry-After"));
        }
        assertTrue(writes.stream().anyMatch(write -> write.jsonPath().getString("message").contains("circuit is open")),
                "the circuit never opened");
        if (breakers != null) {
            assertTrue(save.contains(CircuitBreakerState.OPEN), "the writes' breaker never opened: " + save);
            // The read failed once, the revocation was never called: neither breaker shares the writes' state.
            assertEquals(List.of(), find, "the read's breaker changed state");
            assertEquals(List.of(), revoke, "the revocation's breaker changed state");
        }
        // What the IdentityCircuitBreakerOpen alert and the dashboard read, under the method name operators know:
        // while the breaker was open, its state gauge said it was not closed.
        assertEquals(1, openGauge.size(), "DeviceStore.save's closed-state gauge: " + openGauge);
        assertEquals(0, openGauge.get(0).value(), "the state gauge said closed while the breaker was open");
        assertTrue(PrometheusText.sum(ManagementInterface.metrics(), "ft_circuitbreaker_opened_total{" + SAVE_METHOD + "}") >= 1,
                "DeviceStore.save's opening is not in the metrics");
        assertEquals(503, read.statusCode());
        assertEquals("backend_unavailable", read.jsonPath().getString("reason"));
        assertEquals(201, afterRecovery, "the service did not recover after PgBouncer came back");
        assertEquals(1, Database.countWithPrefix(prefix), "a write refused during the outage was stored");
    }

    /**
     * Status of the first PUT that succeeds (the circuit's test delay is 1 s), retried for at most 15 s; more PUTs
     * until the breaker has closed again (two successes), so that the next test finds it as every test should.
     */
    private int awaitRecovery(String clientId) throws InterruptedException {
        int status = 0;
        for (int attempt = 0; attempt < 60 && status != 201; attempt++) {
            Thread.sleep(250);
            status = api().body(passwordBody("after-outage-padded-to")).put(PATH, clientId).statusCode();
        }
        for (int attempt = 0; breakers != null && attempt < 60
                && breakers.currentState("device-store-save") != CircuitBreakerState.CLOSED; attempt++) {
            Thread.sleep(250);
            api().body(passwordBody("after-outage-padded-to")).put(PATH, clientId);
        }
        return status;
    }

    /** The states the breaker {@code name} moves to from now on. */
    private List<CircuitBreakerState> changesOf(String name) {
        List<CircuitBreakerState> changes = new CopyOnWriteArrayList<>();
        if (breakers != null) {
            breakers.onStateChange(name, changes::add);
        }
        return changes;
    }
}
