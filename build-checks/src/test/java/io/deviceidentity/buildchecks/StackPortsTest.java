package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;

/**
 * scripts/stack.sh's ports, run for real (a PostgreSQL and a PgBouncer of its own, in a stack directory of its own):
 * a port another process holds is named with the variable that moves it, before anything starts (pg_ctl
 * alone only says "could not start server"); and the stack directory remembers the ports it was started with,
 * so that `status` and `db-down` without the overrides find the same stack.
 */
class StackPortsTest {

    private static final Path SCRIPT = Repo.ROOT.resolve("scripts/stack.sh");

    @Test
    void aTakenPortIsNamedWithTheVariableThatMovesItAndNothingStarts() throws Exception {
        Path stackDir = stackDir();
        int pgbouncerPort = freePort();
        try (ServerSocket taken = occupied()) {
            Result up = run(stackDir, Map.of("PG_PORT", String.valueOf(taken.getLocalPort()),
                    "PGBOUNCER_PORT", String.valueOf(pgbouncerPort)), "db-up");
            assertNotEquals(0, up.exit(), up.output());
            assertTrue(up.output().contains("port " + taken.getLocalPort() + " for PostgreSQL is taken"), up.output());
            assertTrue(up.output().contains("make up PG_PORT=<free port>"), up.output());
            assertFalse(up.output().contains("could not start server"), up.output());
            assertFalse(Files.exists(stackDir.resolve("pg/postmaster.pid")), "PostgreSQL started anyway");
        }
        try (ServerSocket taken = occupied()) {
            Result up = run(stackDir, Map.of("PG_PORT", String.valueOf(freePort()),
                    "PGBOUNCER_PORT", String.valueOf(taken.getLocalPort())), "db-up");
            assertNotEquals(0, up.exit(), up.output());
            assertTrue(up.output().contains("port " + taken.getLocalPort() + " for PgBouncer is taken"), up.output());
            assertTrue(up.output().contains("PGBOUNCER_PORT=<free port>"), up.output());
            assertFalse(up.output().contains("starting PostgreSQL"), "PostgreSQL started before the check:\n"
                    + up.output());
        }
    }

    @Test
    void statusAndDownWithoutOverridesFindTheStackStartedWithThem() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/usr/lib/postgresql")), "no PostgreSQL server installed");
        Path stackDir = stackDir();
        int pgPort = freePort();
        int pgbouncerPort = freePort();
        try {
            Result up = run(stackDir, Map.of("PG_PORT", String.valueOf(pgPort),
                    "PGBOUNCER_PORT", String.valueOf(pgbouncerPort)), "db-up");
            assertEquals(0, up.exit(), up.output());

            Result status = run(stackDir, Map.of(), "status");
            assertTrue(status.output().contains("PostgreSQL running on 127.0.0.1:" + pgPort), status.output());
            assertTrue(status.output().contains("PgBouncer running on 127.0.0.1:" + pgbouncerPort), status.output());

            Result down = run(stackDir, Map.of(), "db-down");
            assertEquals(0, down.exit(), down.output());
            Result after = run(stackDir, Map.of(), "status");
            assertTrue(after.output().contains("PostgreSQL stopped"), after.output());
            assertTrue(after.output().contains("PgBouncer stopped"), after.output());
            assertFalse(Files.exists(stackDir.resolve("ports")), "the ports of a stopped stack are still remembered");
        } finally {
            run(stackDir, Map.of("PG_PORT", String.valueOf(pgPort), "PGBOUNCER_PORT", String.valueOf(pgbouncerPort)),
                    "db-down");
        }
    }

    private record Result(int exit, String output) {
    }

    /** The dev profile with only STACK_DIR and {@code ports} set: no port of this shell's environment leaks in. */
    private static Result run(Path stackDir, Map<String, String> ports, String command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(List.of("bash", SCRIPT.toString(), command, "dev"))
                .directory(Repo.ROOT.toFile()).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(k -> k.endsWith("_PORT") || k.equals("EXTERNAL_DB") || k.equals("STACK_DIR"));
        env.put("STACK_DIR", stackDir.toString());
        env.putAll(ports);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(180, TimeUnit.SECONDS), "stack.sh " + command + " did not finish");
        return new Result(process.exitValue(), output);
    }

    private static Path stackDir() throws IOException {
        Path target = Repo.ROOT.resolve("build-checks/target");
        Files.createDirectories(target);
        return Files.createTempDirectory(target.toAbsolutePath(), "ports-");
    }

    private static ServerSocket occupied() throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
        return socket;
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
