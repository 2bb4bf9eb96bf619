package io.deviceidentity.auth.authn;

import static io.deviceidentity.auth.support.Emqx.authnFrom;
import static io.deviceidentity.auth.support.Emqx.decidedFrom;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.directConnection;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.sql.SQLException;
import java.util.List;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.StoredRows;
import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * The negative cache of unknown client ids on the real database: a remembered id is denied without its row being read,
 * and a device registered while it was remembered is allowed on its very first attempt after the registration.
 */
@QuarkusTest
class UnknownDevicesTest {

    @Inject
    MeterRegistry registry;

    @Test
    void aDeviceRegisteredWhileItsIdIsRememberedUnknownIsAllowedOnItsFirstAttempt() throws Exception {
        for (int round = 0; round < 20; round++) {
            String id = uniqueId("registered-later");
            rememberedUnknown(id);

            // What registration-service's PUT does (an INSERT on the owner's connection, committed), then at once
            // the device's CONNECT.
            String password = device(id).store();
            double hits = hits();
            Response answer = decidedFrom("198.18.1.1", id, password);

            assertEquals("allow", answer.jsonPath().getString("result"), "round " + round);
            assertEquals(hits, hits(), "the bump made the remembered entry stale: the row was read");
        }
    }

    @Test
    void aRevokedThenReRegisteredDeviceIsAllowedAtOnceToo() throws Exception {
        String id = uniqueId("re-registered");
        String password = device(id).store();
        assertEquals("allow", decidedFrom("198.18.1.2", id, password).jsonPath().getString("result"));
        StoredRows.update("DELETE FROM device_credentials WHERE client_id = ?", id);
        rememberedUnknown(id);

        String again = device(id).store();

        assertEquals("allow", decidedFrom("198.18.1.2", id, again).jsonPath().getString("result"));
    }

    /** Denies the id until the negative cache answers it (its first misses warm the epochs up). */
    private void rememberedUnknown(String id) throws InterruptedException {
        // Bounded by attempts, not time: the first request of a run can take seconds on a busy machine.
        for (int attempt = 0; attempt < 200; attempt++) {
            double hits = hits();
            Response answer = authnFrom("198.18.1.1", id, "whatever");
            assertEquals("deny", answer.jsonPath().getString("result"));
            if (hits() > hits) {
                return;
            }
            Thread.sleep(5);
        }
        throw new AssertionError("the negative cache never answered " + id);
    }

    private double hits() {
        // Registered when the cache is first used.
        var counter = registry.find(MetricNames.UNKNOWN_CACHE_HITS).counter();
        return counter == null ? 0 : counter.count();
    }

    private static long epochOf(String id) throws SQLException {
        try (Connection connection = directConnection();
                PreparedStatement query = connection.prepareStatement("SELECT epoch FROM registration_epochs"
                        + " WHERE bucket = get_byte(sha256(convert_to(?, 'UTF8')), 0) % 64")) {
            query.setString(1, id);
            try (ResultSet row = query.executeQuery()) {
                row.next();
                return row.getLong(1);
            }
        }
    }
}
