package io.deviceidentity.auth.shutdown;

import static io.deviceidentity.auth.support.Emqx.authnBody;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deviceidentity.auth.support.PackagedAppOnTestStack;
import io.deviceidentity.testsupport.ManagementInterface;
import io.deviceidentity.testsupport.PackagedService;
import io.restassured.response.Response;

/**
 * SIGTERM, as Kubernetes sends it on a rolling update, to the packaged auth-service (JAR or native executable,
 * whichever the run tests: {@link PackagedService}) after it has answered a device: readiness turns DOWN while the
 * management listener still answers (the shutdown delay, in which EMQX's requests already on their way are still
 * served), and the process then exits by itself as the JVM does on SIGTERM: status 143, after Quarkus's shutdown
 * ran. Nothing here is timed; the test waits for each step in turn.
 */
class SigtermIT {

    private static final Path LOG = Path.of("target", "sigterm-it.log");

    @Test
    void sigtermTurnsReadinessDownThenTheServiceExitsCleanly() throws Exception {
        int port = ManagementInterface.freePort();
        int management = ManagementInterface.freePort();
        Map<String, String> settings = new HashMap<>(PackagedAppOnTestStack.settings(management));
        settings.put("quarkus.http.port", Integer.toString(port));
        settings.put("quarkus.http.host", "127.0.0.1");
        Process service = PackagedService.underTest().start(List.of(), settings, LOG);
        PackagedService.Termination termination;
        try {
            PackagedService.awaitReady(service, management, LOG, Duration.ofSeconds(90));
            String id = uniqueId("sigterm");
            String password = device(id).store();
            Response answer = given().port(port).contentType("application/json")
                    .body(authnBody(id, "", password)).post("/mqtt/authn");
            assertEquals("allow", answer.jsonPath().getString("result"), answer.asString());

            termination = PackagedService.terminate(service, management, () -> { });
        } finally {
            service.destroyForcibly();
        }
        assertTrue(termination.readinessWentDown(), "readiness never reported DOWN after SIGTERM: see " + LOG);
        assertTrue(termination.listenerClosedAfterwards(), "the listener closed before readiness went DOWN: see " + LOG);
        assertEquals(143, termination.exitStatus(),
                "exit status after SIGTERM (128 + 15, as the JVM's; -1: still running): see " + LOG);
        assertTrue(Files.readString(LOG).contains(" stopped in "), "Quarkus's shutdown did not run: see " + LOG);
    }
}
