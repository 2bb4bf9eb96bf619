package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.sql.Connection;
import java.sql.SQLException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.agroal.api.AgroalDataSource;

import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.ParallelClient;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Parallel writers end with exactly the rows their answers promise: nothing duplicated, nothing acknowledged and
 * lost. The test profile's bcrypt cost (4), queue (64) and waits admit all 50 hashes; the database step has no queue
 * (as many threads as pooled connections), so a write that finds them all busy is refused with 503 and, as a client
 * would, sent again: retries must neither duplicate a row nor lose one.
 */
@QuarkusTest
class ConcurrentRegistrationTest {

    private static final int PARALLEL = 50;
    private static final Duration TIMEOUT = Duration.ofSeconds(15);

    @TestHTTPResource("/")
    URI base;

    @Inject
    AgroalDataSource pool;

    /**
     * Opens every pooled connection before the burst. Agroal opens connections one at a time, so a cold pool meets a
     * burst with 503s (refused, nothing written: correct, but not what these tests are about).
     */
    @BeforeEach
    void openEveryPooledConnection() throws SQLException {
        List<Connection> held = new ArrayList<>();
        try {
            while (held.size() < pool.getConfiguration().connectionPoolConfiguration().maxSize()) {
                held.add(pool.getConnection());
            }
        } finally {
            for (Connection connection : held) {
                connection.close();
            }
        }
    }

    @Test
    void fiftyParallelPutsOfDistinctDevicesEndWithFiftyRowsEachHoldingItsOwnPassword() {
        String prefix = uniquePrefix("distinct50");
        List<ParallelClient.Result> results;
        try (ParallelClient client = new ParallelClient(base, TIMEOUT, PARALLEL + 8)) {
            results = client.retryUnavailable(
                    client.putAll(PARALLEL, i -> prefix + i, i -> passwordBody("password-padded-to-22-" + i)), 5);
        }
        assertEquals(Map.of(201, (long) PARALLEL), statuses(results), () -> failures(results));
        for (ParallelClient.Result result : results) {
            DeviceCredential stored = Database.row(result.clientId()).orElseThrow(
                    () -> new AssertionError(result.clientId() + " was acknowledged but is not stored"));
            String index = result.clientId().substring(prefix.length());
            assertTrue(Bcrypt.matches("password-padded-to-22-" + index, stored.passwordHash()), result.clientId());
        }
        assertEquals(PARALLEL, Database.countWithPrefix(prefix));
    }

    @Test
    void fiftyParallelPutsOfOneDeviceEndWithOneRowOneCreationAndAnAcknowledgedPassword() {
        String id = uniquePrefix("same50") + "d";
        List<ParallelClient.Result> results;
        try (ParallelClient client = new ParallelClient(base, TIMEOUT, PARALLEL + 8)) {
            results = client.retryUnavailable(client.putAll(PARALLEL, i -> id, i -> passwordBody("password-padded-to-22-" + i)), 5);
        }
        assertEquals(Map.of(201, 1L, 200, (long) PARALLEL - 1), statuses(results),
                () -> "one creation, the rest replacements: " + failures(results));
        assertEquals(1, Database.countWithPrefix(id));
        // The last writer wins; whichever it was, its password was acknowledged to its caller.
        String hash = Database.row(id).orElseThrow().passwordHash();
        long matching = results.stream()
                .filter(result -> Bcrypt.matches(result.requestBody().replaceAll(".*\"(password-padded-to-22-\\d+)\".*", "$1"), hash))
                .count();
        assertEquals(1, matching, "the stored password is not exactly one acknowledged request's");
    }

    private static Map<Integer, Long> statuses(List<ParallelClient.Result> results) {
        return results.stream().collect(Collectors.groupingBy(ParallelClient.Result::status, Collectors.counting()));
    }

    private static String failures(List<ParallelClient.Result> results) {
        return results.stream().filter(result -> !result.isSuccess())
                .collect(Collectors.groupingBy(ParallelClient.Result::body, Collectors.counting())).toString();
    }
}
