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
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.Test;

/**
 * scripts/stack.sh's ports, run for real (a PostgreSQL and a PgBouncer of its own, in a stack directory of its own):
 * `up` checks every port it will bind before anything starts (before the database and the build) and names every
 * taken one in one message, with one command to copy (an offset under which all are free); and the stack directory
 * remembers the ports it was started with, so that `status` and `db-down` without the overrides find the same stack.
 */
class StackPortsTest {

    private static final Path SCRIPT = Repo.ROOT.resolve("scripts/stack.sh");

    @Test
    void upNamesEveryTakenPortInOneMessageWithOneOffsetThatMovesThemAllAndStartsNothing() throws Exception {
        Path stackDir = stackDir();
        int offset = freeOffset();
        // PostgreSQL's port, auth-service's and registration-service's management port: three conflicts at once, the
        // last two of which the old script only found after PostgreSQL, PgBouncer and the build.
        try (ServerSocket pg = occupied(55432 + offset); ServerSocket auth = occupied(8081 + offset);
                ServerSocket management = occupied(9082 + offset)) {
            Result up = run(stackDir, Map.of("PORT_OFFSET", String.valueOf(offset), "SKIP_BUILD", "1"), "up");

            assertNotEquals(0, up.exit(), up.output());
            assertTrue(up.output().contains("3 of the ports this stack would listen on are taken; nothing was started"
                    + " or stopped"), up.output());
            assertTrue(up.output().contains((55432 + offset) + " for PostgreSQL (PG_PORT) is taken"), up.output());
            assertTrue(up.output().contains((8081 + offset) + " for auth-service (AUTH_PORT) is taken"), up.output());
            assertTrue(up.output().contains((9082 + offset) + " for registration-service's management interface"
                    + " (REGISTRATION_PORT + 1000) is taken"), up.output());
            Matcher command = Pattern.compile("move them with: make up PORT_OFFSET=(\\d+)\n").matcher(up.output());
            assertTrue(command.find(), up.output());
            int moved = Integer.parseInt(command.group(1));
            for (int port : new int[] {55432, 56432, 8081, 8082, 9081, 9082}) {
                assertTrue(free(port + moved), "the offered PORT_OFFSET=" + moved + " moves " + port + " onto a taken port");
            }
            for (String started : List.of("starting", "building", "initialising", "issuing")) {
                assertFalse(up.output().contains(started), "something " + started + ":\n" + up.output());
            }
            assertFalse(Files.exists(stackDir.resolve("pg")), "PostgreSQL was initialised anyway");
            assertFalse(Files.exists(stackDir.resolve("ports")), "ports were remembered for a stack that never ran");
        }
    }

    @Test
    void dbUpNamesBothTakenDatabasePortsBeforeEitherStarts() throws Exception {
        Path stackDir = stackDir();
        try (ServerSocket pg = occupied(0); ServerSocket pgbouncer = occupied(0)) {
            Result up = run(stackDir, Map.of("PG_PORT", String.valueOf(pg.getLocalPort()),
                    "PGBOUNCER_PORT", String.valueOf(pgbouncer.getLocalPort())), "db-up");
            assertNotEquals(0, up.exit(), up.output());
            assertTrue(up.output().contains(pg.getLocalPort() + " for PostgreSQL (PG_PORT) is taken"), up.output());
            assertTrue(up.output().contains(pgbouncer.getLocalPort() + " for PgBouncer (PGBOUNCER_PORT) is taken"),
                    up.output());
            assertTrue(up.output().contains("scripts/stack.sh db-up"), up.output());
            assertFalse(up.output().contains("could not start server"), up.output());
            assertFalse(up.output().contains("starting PostgreSQL"), up.output());
            assertFalse(Files.exists(stackDir.resolve("pg/postmaster.pid")), "PostgreSQL started anyway");
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
        env.keySet().removeIf(k -> k.endsWith("_PORT") || k.equals("PORT_OFFSET") || k.equals("EXTERNAL_DB")
                || k.equals("STACK_DIR"));
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

    /** A socket listening on 127.0.0.1:{@code port} (0: any free port). */
    private static ServerSocket occupied(int port) throws IOException {
        ServerSocket socket = new ServerSocket();
        socket.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), port));
        return socket;
    }

    private static boolean free(int port) {
        try (ServerSocket socket = occupied(port)) {
            return true;
        } catch (IOException taken) {
            return false;
        }
    }

    /** An offset, not a multiple of 100, under which make up's six default ports are free on this machine. */
    private static int freeOffset() {
        for (int offset = 1037; offset < 5000; offset += 211) {
            int candidate = offset;
            if (java.util.stream.IntStream.of(55432, 56432, 8081, 8082, 9081, 9082).allMatch(p -> free(p + candidate))) {
                return offset;
            }
        }
        throw new IllegalStateException("no offset under 5000 leaves make up's ports free");
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
