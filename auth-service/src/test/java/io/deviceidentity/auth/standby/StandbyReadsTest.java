package io.deviceidentity.auth.standby;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.Emqx.authz;
import static io.deviceidentity.auth.support.StoredRows.awaitVerifier;
import static io.deviceidentity.auth.support.StoredRows.update;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import jakarta.inject.Inject;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusTest;

/**
 * Reads from a synchronous standby never miss an acknowledged revocation: a real streaming standby of the test
 * PostgreSQL (scripts/stack-ha.sh standby-up), its replay paused, a device revoked on the primary (the commit is
 * acknowledged: the standby has flushed it, not applied it), and every read path of auth-service must deny it: the
 * fast path (a stored verifier), a cold check (bcrypt) and authorization. What decided is observed through the
 * service's count of where reads were answered, never through timing.
 */
@QuarkusTest
@WithTestResource(StandbyReadsTest.Standby.class)
class StandbyReadsTest {

    /** A streaming standby of the test stack's PostgreSQL, synchronous, for this class only. */
    public static class Standby implements QuarkusTestResourceLifecycleManager {
        @Override
        public Map<String, String> start() {
            int port;
            try (ServerSocket free = new ServerSocket(0)) {
                port = free.getLocalPort();
            } catch (IOException e) {
                throw new IllegalStateException(e);
            }
            script("standby-up", String.valueOf(port));
            return Map.of("identity.db.standby-reads.enabled", "true", "identity.db.standby.host", "127.0.0.1",
                    "identity.db.standby.port", String.valueOf(port));
        }

        @Override
        public void stop() {
            script("standby-down");
        }
    }

    @Inject
    MeterRegistry registry;

    @AfterEach
    void replayResumes() {
        script("replay-resume");
    }

    @Test
    void aRevocationAcknowledgedWhileTheStandbyDoesNotReplayIsDeniedOnEveryReadPath() throws Exception {
        String verified = uniqueId("standby-fast");
        String verifiedPassword = device(verified).store();
        String cold = uniqueId("standby-cold");
        String coldPassword = device(cold).store();
        assertEquals("allow", authn(verified, verifiedPassword).jsonPath().getString("result"));
        awaitVerifier(verified, "test-1");
        // Caught up, the standby answers: the path under test is really taken. Its replay follows the commit a
        // moment later (the primary waits for the flush only), so a few reads may still go to the primary.
        double fromStandby = reads("standby");
        for (int i = 0; i < 500 && reads("standby") == fromStandby; i++) {
            assertEquals("allow", authn(verified, verifiedPassword).jsonPath().getString("result"));
            Thread.sleep(10);
        }
        assertTrue(reads("standby") > fromStandby, "a caught-up standby answers the reads");

        script("replay-pause");
        // What registration-service's DELETE commits; each commit returns once the synchronous standby has flushed it.
        update("UPDATE device_credentials SET status = 'revoked' WHERE client_id = ?", verified);
        update("UPDATE device_credentials SET status = 'revoked' WHERE client_id = ?", cold);
        double behind = reads("primary_standby_behind");

        assertEquals("deny", authn(verified, verifiedPassword).jsonPath().getString("result"), "fast path");
        assertEquals("deny", authn(cold, coldPassword).jsonPath().getString("result"), "cold check");
        assertEquals("deny", authz(verified, "publish", "devices/" + verified + "/telemetry", "1", "false")
                .jsonPath().getString("result"), "authorization");
        assertEquals(behind + 3, reads("primary_standby_behind"), "each read went to the primary");
    }

    private double reads(String source) {
        return registry.get(MetricNames.STANDBY_READS).tag("source", source).counter().count();
    }

    static void script(String... command) {
        String script = System.getProperty("stack.ha.script", Path.of("..", "scripts", "stack-ha.sh").toString());
        String[] line = new String[command.length + 2];
        line[0] = script;
        line[1] = command[0];
        line[2] = "test";
        System.arraycopy(command, 1, line, 3, command.length - 1);
        ProcessBuilder process = new ProcessBuilder(line).inheritIO();
        process.environment().put("PG_PORT", System.getProperty("test.pg.port", "55433"));
        process.environment().put("PGBOUNCER_PORT", System.getProperty("test.pgbouncer.port", "56433"));
        try {
            Process running = process.start();
            if (!running.waitFor(120, TimeUnit.SECONDS) || running.exitValue() != 0) {
                throw new IllegalStateException("scripts/stack-ha.sh " + String.join(" ", command) + " failed");
            }
        } catch (IOException e) {
            throw new IllegalStateException("could not run scripts/stack-ha.sh", e);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            throw new IllegalStateException(e);
        }
    }
}
