package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.io.TempDir;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

/**
 * The revocation verdicts in their live mode, the code the kind workflow runs, against stand-ins for what they
 * reach through kubectl (build-checks/src/test/resources/e2e-live: a kubectl that answers the release's Secrets and
 * turns each port-forward into a local registration-service or EMQX REST API that check the credentials they are
 * sent). Recorded samples judge the verdicts' logic; this runs their requests, credentials and port-forwards. The
 * database failover verdict likewise, against HTTPS stand-ins and a kubectl whose primary deletion is an outage.
 */
class E2eChecksLiveTest {

    private static final Path FAKES = Repo.ROOT.resolve("build-checks/src/test/resources/e2e-live");
    private static final String TOKEN = "admin-token-0123456789abcdefghij";

    @TempDir
    Path tempDir;

    @ParameterizedTest
    @ValueSource(strings = {"revoke-kicks", "rekey-kicks"})
    void theVerdictRegistersKicksAndWatchesItsDeviceThroughOnePortForwardToEmqxsApi(String verdict) throws Exception {
        Path state = Files.createDirectories(tempDir.resolve("state"));
        Run run = run("kubectl", verdict, state, Map.of(
                // As the chart writes them: a read-only caller first, then one that may write.
                "FAKE_TOKENS", "audit:read:audit-token-0123456789abcdef,admin:read+write+superuser:" + TOKEN,
                "FAKE_TOKEN", TOKEN,
                "FAKE_API_SECRET", "api-secret-0123456789",
                // Generous: this proves what is sent, not how fast; the stand-in drops the client a second after the kick.
                "KICK_BOUND_SECONDS", "60"));
        assertEquals(0, run.exit(), run.output() + "\nrequests:\n" + read(state.resolve("requests")));

        List<String> calls = Files.readAllLines(state.resolve("calls"));
        assertEquals(1, calls.stream().filter(c -> c.contains("port-forward svc/device-identity-emqx-dashboard")).count(),
                "one port-forward to EMQX's API for the whole verdict: " + calls);
        String requests = read(state.resolve("requests"));
        assertTrue(requests.contains("registration PUT /v1/devices/e2e-" + verdict.replace("-kicks", "")
                + "-probe auth=Bearer " + TOKEN), requests);
        assertTrue(!requests.contains("auth=None") && !requests.contains("401"), requests);
        assertTrue(requests.contains("emqx-api GET /api/v5/clients/e2e-"), requests);
        assertTrue(read(state.resolve("applied.yaml")).contains("devices/e2e-" + verdict.replace("-kicks", "")
                + "-probe/commands/#"), "the session Job as applied subscribes to the device's command topics");
    }

    /**
     * db-failover in its live mode against HTTPS stand-ins for both services (e2e-live/failover-peers.py, verified
     * against the CA the stand-in Secrets hold, auth-service's with EMQX's client certificate) and a kubectl whose
     * primary deletion is a database outage: the verdict writes, logs in, deletes the reported primary, waits for
     * another one and reads every acknowledged device back. It passes when the outage loses nothing and fails when it
     * drops an acknowledged registration.
     */
    @ParameterizedTest
    @ValueSource(strings = {"nothing lost", "a write lost"})
    void theFailoverVerdictDeletesThePrimaryUnderLoadAndReadsEveryAcknowledgedDeviceBack(String outage) throws Exception {
        Path state = Files.createDirectories(tempDir.resolve("state"));
        Files.writeString(state.resolve("primary"), "device-identity-postgresql-1\n");
        certificates(state);
        Run run = run("failover-kubectl", "db-failover", state, Map.of(
                "FAKE_TOKENS", "admin:read+write:" + TOKEN,
                "FAKE_OUTAGE_SECONDS", "3",
                "FAKE_LOSE", outage.equals("a write lost") ? "1" : "0",
                "REPORT_DIR", tempDir.resolve("report").toString(),
                "FAILOVER_WARMUP_SECONDS", "3",
                "FAILOVER_AFTER_SECONDS", "2",
                "FAILOVER_BOUND_SECONDS", "60"));
        String output = run.output();
        List<String> calls = Files.readAllLines(state.resolve("calls"));
        assertTrue(calls.contains("-n identity delete pod device-identity-postgresql-1 --wait=false"), calls.toString());
        assertEquals(2, calls.stream().filter(c -> c.contains(" port-forward svc/")).count(), "one port-forward per service: " + calls);
        if (outage.equals("nothing lost")) {
            assertEquals(0, run.exit(), output);
            assertTrue(output.contains("device-identity-postgresql-2 promoted") && output.contains("0 lost, 0 not revoked"), output);
        } else {
            assertEquals(1, run.exit(), output);
            assertTrue(output.contains("FAILED: 1 acknowledged registrations are missing after the failover"), output);
        }
    }

    record Run(int exit, String output) {
    }

    /** k8s/e2e-checks.sh VERDICT with the stand-in KUBECTL (a file of e2e-live) first on PATH. */
    private Run run(String kubectl, String verdict, Path state, Map<String, String> extraEnv) throws Exception {
        Path bin = Files.createDirectories(tempDir.resolve("bin"));
        Files.copy(FAKES.resolve(kubectl), bin.resolve("kubectl"), StandardCopyOption.REPLACE_EXISTING);
        Files.setPosixFilePermissions(bin.resolve("kubectl"), PosixFilePermissions.fromString("rwxr-xr-x"));
        ProcessBuilder builder = new ProcessBuilder("bash", Repo.ROOT.resolve("k8s/e2e-checks.sh").toString(), verdict)
                .redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("PATH", bin + ":" + env.get("PATH"));
        env.put("FAKE_DIR", FAKES.toString());
        env.put("FAKE_STATE", state.toString());
        env.put("LOADTEST", Repo.loadtestCommand());
        env.putAll(extraEnv);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), output);
        return new Run(process.exitValue(), output);
    }

    /** A CA, a server certificate for both services' names and a client certificate, made by openssl in STATE. */
    private static void certificates(Path state) throws Exception {
        String script = """
                set -e
                cd "$1"
                key() { openssl req -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout "$1.key" -out "$1.csr" -subj "/CN=$1"; }
                openssl req -x509 -newkey ec -pkeyopt ec_paramgen_curve:prime256v1 -nodes -keyout ca.key -out ca.crt -days 1 -subj /CN=ca
                key server
                printf 'subjectAltName=DNS:device-identity-registration-service.identity.svc,DNS:device-identity-auth-service.identity.svc\\n' >server.ext
                openssl x509 -req -in server.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out server.crt -days 1 -extfile server.ext
                key client
                openssl x509 -req -in client.csr -CA ca.crt -CAkey ca.key -CAcreateserial -out client.crt -days 1
                """;
        Process process = new ProcessBuilder("bash", "-c", script, "bash", state.toString()).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0, output);
    }

    private static String read(Path file) throws Exception {
        return Files.exists(file) ? Files.readString(file) : "";
    }
}
