package io.deviceidentity.auth.fastpath;

import static io.deviceidentity.auth.support.Emqx.authnBody;
import static io.deviceidentity.auth.support.StoredRows.awaitVerifier;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.PackagedAppOnTestStack;
import io.deviceidentity.auth.support.PrometheusScrape;
import io.deviceidentity.testsupport.ManagementInterface;
import io.deviceidentity.testsupport.PackagedService;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.response.Response;

/**
 * A verifier written through one auth-service instance is used by another, started afterwards: the fast path lives
 * in PostgreSQL, not in a replica's memory, so it survives restarts and works on whichever replica EMQX asks. The
 * first instance is the packaged artifact Quarkus starts; the second is the same artifact (JAR or native executable)
 * started by the test, with the same configuration as the chart would give a second replica.
 */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class FastPathAcrossInstancesIT {

    private static final Path LOG = Path.of("target", "second-instance.log");

    @Test
    void aVerifierWrittenByOneInstanceAllowsWithoutBcryptOnASecondOne() throws Exception {
        String id = uniqueId("two-instances");
        String password = device(id).store();
        Response first = given().contentType("application/json").body(authnBody(id, "", password))
                .post("/mqtt/authn");
        assertEquals("allow", first.jsonPath().getString("result"), first.asString());
        awaitVerifier(id, "test-1");

        int port = freePort();
        int management = ManagementInterface.freePort();
        Process second = start(port, management);
        try {
            PackagedService.awaitReady(second, management, LOG, Duration.ofSeconds(60));
            // Readiness comes after the warm-up, which hashes a few times itself: count from here.
            double hashedBefore = PrometheusScrape.sum(management, "identity_bcrypt_duration_seconds_count");
            Response answer = given().port(port).contentType("application/json").body(authnBody(id, "", password))
                    .post("/mqtt/authn");
            assertEquals("allow", answer.jsonPath().getString("result"), answer.asString());
            assertEquals(1.0, PrometheusScrape.sum(management, "identity_fastpath_allows_total"), "allowed by the verifier");
            assertEquals(hashedBefore, PrometheusScrape.sum(management, "identity_bcrypt_duration_seconds_count"),
                    "no bcrypt on the second for this device");
        } finally {
            second.destroy();
            if (!second.waitFor(20, TimeUnit.SECONDS)) {
                second.destroyForcibly();
            }
        }
    }

    private static Process start(int port, int management) throws IOException {
        // The first instance's settings (test stack, fast-path key, bcrypt limits a busy machine cannot reach: with
        // production's SCHED_IDLE hashes, a busy machine starves the second instance's warm-up and it never gets
        // ready), on a port of its own.
        Map<String, String> settings = new HashMap<>(PackagedAppOnTestStack.settings(management));
        settings.put("quarkus.http.port", Integer.toString(port));
        settings.put("quarkus.http.host", "127.0.0.1");
        return PackagedService.underTest().start(List.of("-Xmx256m"), settings,
                LOG);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
