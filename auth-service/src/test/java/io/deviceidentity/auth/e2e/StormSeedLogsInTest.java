package io.deviceidentity.auth.e2e;

import static io.deviceidentity.auth.support.Emqx.authn;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deviceidentity.auth.support.TestDevices;
import io.deviceidentity.testsupport.TestDatabase;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The kind connection storm's devices, seeded as k8s/kind.sh storm seeds them (its seed_devices SQL, run by psql
 * through a stand-in for {@code kubectl exec} against the real test database), log in as emqtt-bench connects
 * them: client id {@code bench-<n>}, no username (EMQX sends {@code ""}), the Job's BENCH_PASSWORD.
 */
@QuarkusTest
class StormSeedLogsInTest {

    private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
    private static final Pattern STORM_SEED = Pattern.compile("seed_devices (\\S+) 0 .* (\\S+)\\n");
    private static final Pattern BENCH_PASSWORD = Pattern.compile("name: BENCH_PASSWORD\\s+value: (\\S+)");

    @TempDir
    Path tempDir;

    private String prefix;

    @Test
    void devicesSeededByTheStormStepLogInWithTheBenchPasswordAndNoUsername() throws Exception {
        Matcher seed = STORM_SEED.matcher(Files.readString(ROOT.resolve("k8s/kind.sh")));
        assertTrue(seed.find(), "k8s/kind.sh storm no longer calls seed_devices");
        prefix = seed.group(1);
        String password = seed.group(2);
        Matcher job = BENCH_PASSWORD.matcher(Files.readString(ROOT.resolve("k8s/jobs/emqtt-bench-conn-job.yaml")));
        assertTrue(job.find(), "the storm Job has no BENCH_PASSWORD");
        assertEquals(job.group(1), password, "the storm seeds another password than the Job connects with");

        runSeed(prefix, password);

        for (int n : new int[] {0, 1, 2}) {
            authn(prefix + n, "", password).then().statusCode(200).body("result", equalTo("allow"));
        }
        authn(prefix + 1, "", password + "x").then().statusCode(200).body("result", equalTo("deny"));
    }

    /** k8s/kind.sh's seed_devices, sourced, with kubectl exec replaced by running its command here. */
    private void runSeed(String prefix, String password) throws Exception {
        Path bin = Files.createDirectories(tempDir.resolve("bin"));
        Path kubectl = bin.resolve("kubectl");
        Files.writeString(kubectl, "#!/bin/bash\nwhile [[ $# -gt 0 && $1 != -- ]]; do shift; done\nshift\nexec \"$@\"\n");
        Files.setPosixFilePermissions(kubectl, PosixFilePermissions.fromString("rwxr-xr-x"));
        ProcessBuilder builder = new ProcessBuilder("bash", "-c",
                "source \"$1\" && seed_devices \"$2\" 0 2 \"$3\"", "bash",
                ROOT.resolve("k8s/kind.sh").toString(), prefix, password).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.put("PATH", bin + ":" + env.get("PATH"));
        // What the chart's PostgreSQL container has (POSTGRES_USER, POSTGRES_DB), pointed at the test database.
        env.put("POSTGRES_USER", TestDevices.DB_USER);
        env.put("POSTGRES_DB", "identity");
        env.put("PGPASSWORD", TestDevices.DB_PASSWORD);
        env.put("PGHOST", "127.0.0.1");
        env.put("PGPORT", String.valueOf(TestDatabase.postgresPort()));
        env.put("PGSSLMODE", "verify-full");
        env.put("PGSSLROOTCERT", TestDatabase.ca().toString());
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, process.exitValue(), output);
    }

    @AfterEach
    void removeSeededDevices() throws Exception {
        if (prefix == null) {
            return;
        }
        try (Connection connection = TestDevices.directConnection();
                PreparedStatement delete = connection.prepareStatement(
                        "DELETE FROM device_credentials WHERE client_id IN (?, ?, ?)")) {
            for (int n = 0; n < 3; n++) {
                delete.setString(n + 1, prefix + n);
            }
            delete.executeUpdate();
        }
    }
}
