package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

/**
 * PostgreSQL refuses a Unix socket path over 107 bytes, and scripts/stack.sh keeps its sockets under the checkout
 * (.local/&lt;profile&gt;/run), so a deep checkout (GitHub: /home/runner/work/&lt;repo&gt;/&lt;repo&gt;/...) broke `make
 * test`. The test stack started from a state directory whose socket path would be too long must come up anyway.
 * Needs PostgreSQL and PgBouncer installed, like the rest of `make test`.
 */
class StackSocketPathTest {

    @Test
    void theTestStackStartsFromAStateDirectoryTooDeepForASocketPath() throws Exception {
        Path base = Files.createTempDirectory("stack-socket");
        // As root the database runs as 'postgres', which must reach the state directory.
        Files.setPosixFilePermissions(base, java.nio.file.attribute.PosixFilePermissions.fromString("rwxr-xr-x"));
        // 107 bytes would be the limit for <run>/.s.PGSQL.<port>: this directory alone is longer.
        Path stackDir = base.resolve("a".repeat(Math.max(1, 110 - base.toString().length()))).resolve("test");
        assertTrue((stackDir + "/run/.s.PGSQL.55433").length() > 107);
        Map<String, String> env = Map.of("STACK_DIR", stackDir.toString(), "PG_PORT", String.valueOf(freePort()),
                "PGBOUNCER_PORT", String.valueOf(freePort()));
        try {
            String up = stack(env, "db-up");
            assertTrue(up.contains("starting PgBouncer"), up);
            String status = stack(env, "status");
            assertTrue(status.contains("PostgreSQL running") && status.contains("PgBouncer running"), status);
        } finally {
            stack(env, "db-down");
            delete(base);
            // The short socket directory stack.sh chose: /tmp/di-<md5(STACK_DIR), 12 hex>-<profile>.
            byte[] md5 = java.security.MessageDigest.getInstance("MD5").digest(stackDir.toString().getBytes(StandardCharsets.UTF_8));
            delete(Path.of("/tmp/di-" + java.util.HexFormat.of().formatHex(md5).substring(0, 12) + "-test"));
        }
    }

    private static String stack(Map<String, String> env, String command) throws IOException, InterruptedException {
        ProcessBuilder builder = new ProcessBuilder("bash", Repo.ROOT.resolve("scripts/stack.sh").toString(), command, "test")
                .redirectErrorStream(true);
        builder.environment().putAll(env);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), output);
        assertEquals(0, process.exitValue(), "scripts/stack.sh " + command + " test:\n" + output);
        return output;
    }

    private static void delete(Path dir) throws IOException {
        if (Files.exists(dir)) {
            try (Stream<Path> files = Files.walk(dir)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
