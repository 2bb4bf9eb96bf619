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
import java.util.concurrent.TimeUnit;

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
        boolean readinessWentDown = false;
        boolean listenerClosedAfterwards = false;
        boolean exited;
        try {
            PackagedService.awaitReady(service, management, LOG, Duration.ofSeconds(90));
            String id = uniqueId("sigterm");
            String password = device(id).store();
            Response answer = given().port(port).contentType("application/json")
                    .body(authnBody(id, "", password)).post("/mqtt/authn");
            assertEquals("allow", answer.jsonPath().getString("result"), answer.asString());

            service.destroy(); // SIGTERM
            long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
            while (System.nanoTime() < until) {
                int ready = PackagedService.readiness(management);
                if (ready == 503) {
                    readinessWentDown = true;
                } else if (ready < 0) {
                    listenerClosedAfterwards = readinessWentDown;
                    break;
                }
                Thread.sleep(50);
            }
            // The shutdown delay and timeout (5 s and 10 s) have passed long before this.
            exited = service.waitFor(60, TimeUnit.SECONDS);
        } finally {
            service.destroyForcibly();
        }
        assertTrue(readinessWentDown, "readiness never reported DOWN after SIGTERM: see " + LOG);
        assertTrue(listenerClosedAfterwards, "the listener closed before readiness went DOWN: see " + LOG);
        assertTrue(exited, "the service did not exit within 60 s of SIGTERM: see " + LOG);
        assertEquals(143, service.exitValue(), "exit status after SIGTERM (128 + 15, as the JVM's): see " + LOG);
        assertTrue(Files.readString(LOG).contains(" stopped in "), "Quarkus's shutdown did not run: see " + LOG);
    }
}
