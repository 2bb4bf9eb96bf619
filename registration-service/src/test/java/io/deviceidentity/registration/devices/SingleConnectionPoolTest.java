package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.agroal.api.AgroalDataSource;
import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.ParallelClient;
import io.deviceidentity.registration.support.PausableHasher;
import io.deviceidentity.registration.support.SingleConnectionPool;
import io.quarkus.test.common.http.TestHTTPResource;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * The incident's second trap: every request held one connection while waiting for a second one from a bounded
 * pool, so a burst as large as the pool deadlocked it. With a pool of one, a request that ever wanted two
 * connections could never finish.
 */
@QuarkusTest
@TestProfile(SingleConnectionPool.class)
class SingleConnectionPoolTest {

    private static final String PATH = "/v1/devices/{id}";
    /** identity.overload.deadline (4 s) + acquisition-timeout (1 s) + slack for a loaded test machine. */
    private static final Duration NO_ANSWER_MEANS_DEADLOCK = Duration.ofSeconds(9);

    @Inject
    AgroalDataSource pool;

    @Inject
    PausableHasher hasher;

    @TestHTTPResource("/")
    URI base;

    @Test
    void thePoolUnderTestHasExactlyOneConnection() {
        assertEquals(1, pool.getConfiguration().connectionPoolConfiguration().maxSize());
    }

    @Test
    void whileOneRegistrationHashesOtherRequestsUseTheOnlyConnection() throws Exception {
        String existing = uniqueId("one-conn");
        api().body(passwordBody("existing-padded-to-22-")).put(PATH, existing).then().statusCode(201);
        String hashing = uniqueId("one-conn");
        PausableHasher.Pause pause = hasher.pauseNextHash();
        CompletableFuture<Response> put = CompletableFuture.supplyAsync(
                () -> api().body(passwordBody("paused-padded-to-22-ch")).put(PATH, hashing));
        try {
            assertTrue(pause.awaitHashInProgress(10), "the registration never started hashing");
            // Both need the pool's only connection while the first registration is mid-hash.
            api().get(PATH, existing).then().statusCode(200);
            api().delete(PATH, existing).then().statusCode(204);
        } finally {
            pause.release();
        }
        assertEquals(201, put.get(10, TimeUnit.SECONDS).statusCode());
    }

    @Test
    void twentyConcurrentRegistrationsAllCompleteAnd2xxOr503WithoutDeadlock() throws Exception {
        String prefix = uniquePrefix("burst20");
        List<ParallelClient.Result> results;
        try (ParallelClient client = new ParallelClient(base, NO_ANSWER_MEANS_DEADLOCK, 32)) {
            results = client.putAll(20, i -> prefix + i, i -> passwordBody("burst-password-padded-" + i));
        }
        ObjectMapper json = new ObjectMapper();
        int successes = 0;
        for (ParallelClient.Result result : results) {
            if (result.isSuccess()) {
                successes++;
                assertEquals(201, result.status(), result.clientId());
                String hash = Database.row(result.clientId()).orElseThrow(
                        () -> new AssertionError(result.clientId() + " was acknowledged but is not stored"))
                        .passwordHash();
                assertTrue(Bcrypt.matches("burst-password-padded-" + result.clientId().substring(prefix.length()), hash));
            } else if (result.status() == 503) {
                String reason = json.readTree(result.body()).path("reason").asText();
                // Refused for CPU or time is fine; refused for want of a connection means a request held two.
                assertTrue(Set.of("overload", "deadline").contains(reason),
                        result.clientId() + " answered 503 " + reason);
                assertTrue(Database.row(result.clientId()).isEmpty(), result.clientId() + " refused but stored");
            } else {
                fail(result.clientId() + " answered " + result.status() + ": " + result.body());
            }
        }
        assertTrue(successes > 0, "no registration succeeded");
        assertEquals(successes, Database.countWithPrefix(prefix));
        System.out.printf("max-size=1, 20 concurrent registrations at cost 10: %d x 201, %d x 503, %s%n", successes,
                results.size() - successes, results.stream()
                        .collect(Collectors.groupingBy(ParallelClient.Result::status, Collectors.counting())));
    }
}
