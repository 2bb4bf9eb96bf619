package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;
import java.util.stream.Stream;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

/**
 * The local stack's PostgreSQL socket admits nobody but the database's own OS user (and root), and only as the
 * superuser: scripts/stack.sh db-up on a state directory of its own, then what another OS user can reach. Before,
 * pg_hba.conf trusted every local connection on a socket of mode 777, so any OS user could connect as the superuser
 * and read every hash. Needs PostgreSQL and PgBouncer installed, like the rest of `make test`; the checks as another
 * OS user need root (runuser), which `make test` has in CI and the dev containers.
 */
class StackDatabaseSocketTest {

    private static Path base;
    private static Path stackDir;
    private static Map<String, String> env;

    @BeforeAll
    static void startAStackOfItsOwn() throws Exception {
        base = Files.createTempDirectory("stack-socket-access");
        // As root the database runs as 'postgres', which must reach the state directory.
        Files.setPosixFilePermissions(base, PosixFilePermissions.fromString("rwxr-xr-x"));
        stackDir = base.resolve("test");
        env = Map.of("STACK_DIR", stackDir.toString(), "PG_PORT", String.valueOf(freePort()),
                "PGBOUNCER_PORT", String.valueOf(freePort()));
        assertEquals(0, stack("db-up").exit);
    }

    @AfterAll
    static void stopIt() throws Exception {
        if (env != null) {
            stack("db-down");
        }
        if (base != null && Files.exists(base)) {
            try (Stream<Path> files = Files.walk(base)) {
                files.sorted(Comparator.reverseOrder()).forEach(path -> path.toFile().delete());
            }
        }
    }

    @Test
    void pgHbaTrustsNothingAndAdmitsOnlyTheSuperuserByPeerOnTheSocket() throws IOException {
        List<String> rules = Files.readAllLines(stackDir.resolve("pg/pg_hba.conf")).stream()
                .filter(line -> !line.isBlank() && !line.startsWith("#")).toList();
        assertTrue(rules.stream().noneMatch(line -> line.matches(".*\\btrust\\b.*")), rules::toString);
        List<String> local = rules.stream().filter(line -> line.startsWith("local")).toList();
        // The superuser alone, for sessions and for replication (a streaming standby of the test database replicates
        // over the socket: scripts/stack-ha.sh standby-up).
        assertEquals(List.of("local all postgres peer map=stack", "local replication postgres peer map=stack"),
                local.stream().map(line -> line.replaceAll("\\s+", " ").strip()).toList());
    }

    @Test
    void theSocketDirectoryIsTheDatabaseUsersAlone() throws IOException {
        Path run = stackDir.resolve("run");
        assertTrue(Files.exists(run.resolve(".s.PGSQL." + env.get("PG_PORT"))), "the socket is not in " + run);
        assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(run)));
    }

    @Test
    void anotherOsUserCannotReachTheSocketAndTheDatabaseUserReachesItOnlyAsTheSuperuser() throws Exception {
        if (!"root".equals(System.getProperty("user.name"))) {
            return; // runuser needs root; the two tests above hold for every user
        }
        Result stranger = psqlAs("nobody", "postgres", "postgres");
        assertNotEquals(0, stranger.exit, stranger.output);
        Result owner = psqlAs("postgres", "postgres", "postgres");
        assertEquals(0, owner.exit, owner.output);
        assertEquals("1", owner.output.strip());
        // The application's role has a password, and TCP with TLS is its way in; never the socket.
        Result application = psqlAs("postgres", "identity", "identity");
        assertNotEquals(0, application.exit, application.output);
        assertTrue(application.output.contains("no pg_hba.conf entry"), application.output);
        // A second db-up (the running server re-reads pg_hba.conf) still reaches it as its superuser.
        assertEquals(0, stack("db-up").exit);
    }

    private record Result(int exit, String output) {
    }

    private static Result psqlAs(String osUser, String role, String database) throws Exception {
        return run(List.of("runuser", "-u", osUser, "--", "psql", "-X", "-At", "-h",
                stackDir.resolve("run").toString(), "-p", env.get("PG_PORT"), "-U", role, "-d", database, "-c",
                "SELECT 1"), Map.of("PGCONNECT_TIMEOUT", "10"));
    }

    private static Result stack(String command) throws Exception {
        Result result = run(List.of("bash", Repo.ROOT.resolve("scripts/stack.sh").toString(), command, "test"), env);
        assertEquals(0, result.exit, "scripts/stack.sh " + command + " test:\n" + result.output);
        return result;
    }

    private static Result run(List<String> command, Map<String, String> extra) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(new ArrayList<>(command)).redirectErrorStream(true);
        builder.environment().keySet().removeIf(k -> k.startsWith("PG"));
        builder.environment().putAll(extra);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(120, TimeUnit.SECONDS), String.join(" ", command) + " hangs:\n" + output);
        return new Result(process.exitValue(), output);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
