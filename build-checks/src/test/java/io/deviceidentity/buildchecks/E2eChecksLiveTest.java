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
 * sent). Recorded samples judge the verdicts' logic; this runs their requests, credentials and port-forwards.
 */
class E2eChecksLiveTest {

    private static final Path FAKES = Repo.ROOT.resolve("build-checks/src/test/resources/e2e-live");
    private static final String TOKEN = "admin-token-0123456789abcdefghij";

    @TempDir
    Path tempDir;

    @ParameterizedTest
    @ValueSource(strings = {"revoke-kicks", "rekey-kicks"})
    void theVerdictRegistersKicksAndWatchesItsDeviceThroughOnePortForwardToEmqxsApi(String verdict) throws Exception {
        Path bin = Files.createDirectories(tempDir.resolve("bin"));
        Path state = Files.createDirectories(tempDir.resolve("state"));
        Files.copy(FAKES.resolve("kubectl"), bin.resolve("kubectl"), StandardCopyOption.REPLACE_EXISTING);
        Files.setPosixFilePermissions(bin.resolve("kubectl"), PosixFilePermissions.fromString("rwxr-xr-x"));
        ProcessBuilder builder = new ProcessBuilder("bash", Repo.ROOT.resolve("k8s/e2e-checks.sh").toString(), verdict)
                .redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("PATH", bin + ":" + env.get("PATH"));
        env.put("FAKE_DIR", FAKES.toString());
        env.put("FAKE_STATE", state.toString());
        // As the chart writes them: a read-only caller first, then one that may write.
        env.put("FAKE_TOKENS", "audit:read:audit-token-0123456789abcdef,admin:read+write+superuser:" + TOKEN);
        env.put("FAKE_TOKEN", TOKEN);
        env.put("FAKE_API_SECRET", "api-secret-0123456789");
        // Generous: this proves what is sent, not how fast; the stand-in drops the client a second after the kick.
        env.put("KICK_BOUND_SECONDS", "60");
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), output);
        assertEquals(0, process.exitValue(), output + "\nrequests:\n" + read(state.resolve("requests")));

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

    private static String read(Path file) throws Exception {
        return Files.exists(file) ? Files.readString(file) : "";
    }
}
