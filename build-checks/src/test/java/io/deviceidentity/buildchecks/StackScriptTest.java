package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;

/**
 * `scripts/stack.sh up` (what `make up` runs) against the real test PostgreSQL + PgBouncer of `make test`, used as
 * "your own PostgreSQL" (EXTERNAL_DB=1) with the jars the reactor built before this module (SKIP_BUILD=1): a second
 * `up` leaves unchanged services running, a changed environment restarts the service it concerns and names the
 * variable (its log kept, after a marker line), the API and management ports listen on BIND_HOST only, every
 * example request of the docs passes against it ({@link DocRequests}), `restart` onto a taken port stops nothing,
 * REGISTRATION_TOKEN (singular) is refused, and `down` leaves the database alone.
 */
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class StackScriptTest {

    private static final Path SCRIPT = Repo.ROOT.resolve("scripts/stack.sh");
    /** The line stack.sh appends to a service's log before each start. */
    private static final String MARKER = "==== \\d{4}-\\d\\d-\\d\\dT\\d\\d:\\d\\d:\\d\\dZ scripts/stack\\.sh starts auth-service ====";
    private static Path stackDir;
    private static int authPort;
    private static int registrationPort;

    @BeforeAll
    static void needsTheBuiltServices() throws IOException {
        for (String service : List.of("auth-service", "registration-service")) {
            assumeTrue(Files.exists(Repo.ROOT.resolve(service + "/target/quarkus-app/quarkus-run.jar")),
                    service + " is not packaged (run through `make test`, which builds it first)");
        }
        stackDir = Files.createTempDirectory(Repo.ROOT.resolve("build-checks/target").toAbsolutePath(), "stack-");
        authPort = freePort();
        registrationPort = freePort();
    }

    @AfterAll
    static void stopTheServices() throws Exception {
        if (stackDir != null) {
            run(Map.of(), "down");
        }
    }

    @Test
    @Order(1)
    void upStartsBothServicesAgainstAnExistingDatabase() throws Exception {
        Result up = run(Map.of(), "up");
        assertEquals(0, up.exit, up.output);
        assertTrue(up.output.contains("using your PostgreSQL"), up.output);
        assertTrue(up.output.contains("starting registration-service on 127.0.0.1:" + registrationPort), up.output);
        assertTrue(up.output.contains("starting auth-service on 127.0.0.1:" + authPort), up.output);
        assertFalse(up.output.contains("\u001b["), "escape codes in the output:\n" + up.output);
    }

    @Test
    @Order(2)
    void aSecondUpLeavesUnchangedServicesRunning() throws Exception {
        String before = pid("auth-service");
        Result up = run(Map.of(), "up");
        assertEquals(0, up.exit, up.output);
        assertTrue(up.output.contains("auth-service already running, unchanged"), up.output);
        assertTrue(up.output.contains("registration-service already running, unchanged"), up.output);
        assertEquals(before, pid("auth-service"));
    }

    @Test
    @Order(2)
    void everyExampleRequestOfTheDocsPassesAgainstTheStack() throws Exception {
        List<DocRequests.Runnable> blocks = DocRequests.blocks();
        assertTrue(blocks.size() >= 4, "example blocks found: " + blocks.stream().map(DocRequests.Runnable::where).toList());
        // The walk-throughs register devices and say 201: they start from a database without them, as on a fresh stack.
        psql("DELETE FROM device_credentials WHERE client_id IN ('"
                + String.join("','", DocRequests.registeredDevices(blocks)) + "')");
        List<String> problems = new ArrayList<>();
        int requests = 0;
        for (DocRequests.Runnable block : blocks) {
            List<DocRequests.Sent> sent = DocRequests.run(block, stackDir, stackDir.resolve("tls/ca.crt"), authPort,
                    registrationPort);
            if (sent.isEmpty()) {
                problems.add(block.where() + ": the block sent no request");
            }
            requests += sent.size();
            sent.stream().map(s -> DocRequests.problem(block, s)).filter(java.util.Objects::nonNull).forEach(problems::add);
        }
        assertTrue(problems.isEmpty(), requests + " requests, these fail:\n" + String.join("\n", problems));
    }

    @Test
    @Order(3)
    void aChangedEnvironmentRestartsTheServiceAndNamesWhatChanged() throws Exception {
        String authBefore = pid("auth-service");
        String registrationBefore = pid("registration-service");
        Result up = run(Map.of("AUTH_DB_POOL_MAX", "4"), "up");
        assertEquals(0, up.exit, up.output);
        assertTrue(up.output.contains("auth-service: jar or configuration changed since it started (AUTH_DB_POOL_MAX):"
                + " restarting it"), up.output);
        assertTrue(up.output.contains("registration-service already running, unchanged"), up.output);
        assertNotEquals(authBefore, pid("auth-service"));
        assertEquals(registrationBefore, pid("registration-service"));
        String environ = Files.readString(Path.of("/proc", pid("auth-service"), "environ"));
        assertTrue(environ.contains("AUTH_DB_POOL_MAX=4"), "the restarted service does not have the new setting");
    }

    @Test
    @Order(2)
    void theManagementInterfacesListenOnBindHostOnly() throws Exception {
        // BIND_HOST is left at its default, 127.0.0.1: nothing of the services may listen on another address.
        for (int port : new int[] {authPort, registrationPort}) {
            assertEquals(Set.of("127.0.0.1"), listeningAddresses(port), "API port " + port);
            assertEquals(Set.of("127.0.0.1"), listeningAddresses(port + 1000), "management port " + (port + 1000));
        }
    }

    @Test
    @Order(4)
    void aRestartedServiceKeepsItsEarlierLogAfterAMarkerLine() throws Exception {
        // Order 3 restarted auth-service: its first run's lines are still there, then the restart's marker.
        List<String> log = Files.readAllLines(stackDir.resolve("log/auth-service.log"));
        List<Integer> starts = new ArrayList<>();
        List<Integer> markers = new ArrayList<>();
        for (int i = 0; i < log.size(); i++) {
            if (log.get(i).contains(" started in ")) {
                starts.add(i);
            }
            if (log.get(i).matches(MARKER)) {
                markers.add(i);
            }
        }
        assertEquals(2, starts.size(), "Quarkus start lines in the log:\n" + String.join("\n", log));
        assertEquals(2, markers.size(), "marker lines in the log:\n" + String.join("\n", log));
        assertTrue(markers.get(0) < starts.get(0) && starts.get(0) < markers.get(1) && markers.get(1) < starts.get(1),
                "marker, first run, marker, second run:\n" + String.join("\n", log));
    }

    @Test
    @Order(4)
    void noRestartKeepsTheServiceAndSaysSoLoudly() throws Exception {
        String before = pid("registration-service");
        Result up = run(Map.of("NO_RESTART", "1", "REGISTRATION_TOKENS", "another-token"), "up");
        assertEquals(0, up.exit, up.output);
        assertTrue(up.output.contains("WARNING: registration-service runs with an older jar or configuration"
                + " (REGISTRATION_TOKENS) and was NOT restarted"), up.output);
        String warning = up.output.lines().filter(l -> l.contains("WARNING")).findFirst().orElseThrow();
        assertFalse(warning.contains("another-token"), "the warning shows a value: " + warning);
        assertEquals(before, pid("registration-service"));
    }

    @Test
    @Order(5)
    void restartOntoATakenPortNamesItAndStopsNothing() throws Exception {
        String auth = pid("auth-service");
        String registration = pid("registration-service");
        try (ServerSocket taken = new ServerSocket(0, 50, java.net.InetAddress.getLoopbackAddress())) {
            Result restart = run(Map.of("AUTH_PORT", String.valueOf(taken.getLocalPort())), "restart");

            assertNotEquals(0, restart.exit, restart.output);
            assertTrue(restart.output.contains(taken.getLocalPort() + " for auth-service (AUTH_PORT) is taken"),
                    restart.output);
            assertTrue(restart.output.contains("nothing was started or stopped"), restart.output);
            assertTrue(restart.output.contains("move them with: make restart AUTH_PORT="), restart.output);
            assertFalse(restart.output.contains("stopping"), restart.output);
        }
        assertEquals(auth, pid("auth-service"));
        assertEquals(registration, pid("registration-service"));
        assertTrue(Files.exists(Path.of("/proc", auth)) && Files.exists(Path.of("/proc", registration)),
                "a service was stopped");
    }

    @Test
    @Order(5)
    void theSingularTokenVariableIsRefusedWithTheRightName() throws Exception {
        Result up = run(Map.of("REGISTRATION_TOKEN", "my-token"), "up");
        assertNotEquals(0, up.exit, up.output);
        assertTrue(up.output.contains("REGISTRATION_TOKEN is not read: the variable is REGISTRATION_TOKENS"), up.output);
    }

    @Test
    @Order(6)
    void downStopsTheServicesAndLeavesYourDatabaseAlone() throws Exception {
        Result down = run(Map.of(), "down");
        assertEquals(0, down.exit, down.output);
        assertTrue(down.output.contains("leaving your PostgreSQL alone"), down.output);
        Result status = run(Map.of(), "status");
        assertTrue(status.output.contains("auth-service stopped") && status.output.contains("registration-service stopped"),
                status.output);
    }

    /** One statement against the test database (what the stack under test uses as "your own PostgreSQL"). */
    private static void psql(String sql) throws Exception {
        ProcessBuilder builder = new ProcessBuilder("psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-h", "127.0.0.1", "-p",
                System.getProperty("test.pg.port", "55433"), "-U", "identity", "-d", "identity", "-c", sql)
                .redirectErrorStream(true);
        builder.environment().put("PGPASSWORD", "identity-local-dev");
        builder.environment().put("PGSSLMODE", "verify-full");
        builder.environment().put("PGSSLROOTCERT",
                System.getProperty("test.db.ca", Repo.ROOT.resolve(".local/test/tls/ca.crt").toString()));
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(60, TimeUnit.SECONDS) && process.exitValue() == 0, "psql: " + output);
    }

    /** The local addresses of the TCP sockets listening on {@code port}, from /proc/net/tcp and tcp6. */
    private static Set<String> listeningAddresses(int port) throws IOException {
        Set<String> addresses = new TreeSet<>();
        String hexPort = String.format(":%04X", port);
        for (String table : List.of("/proc/net/tcp", "/proc/net/tcp6")) {
            for (String line : Files.readAllLines(Path.of(table))) {
                String[] fields = line.strip().split("\\s+");
                // sl local_address rem_address st ...: st 0A is LISTEN; addresses are hex, little-endian per word.
                if (fields.length > 3 && fields[1].endsWith(hexPort) && fields[3].equals("0A")) {
                    String hex = fields[1].substring(0, fields[1].indexOf(':'));
                    // An IPv4-mapped IPv6 address (::ffff:a.b.c.d, how Vert.x may bind an IPv4 host) is that IPv4 one.
                    boolean mapped = hex.length() == 32 && hex.startsWith("0000000000000000FFFF0000");
                    addresses.add(hex.length() == 8 ? ipv4(hex) : mapped ? ipv4(hex.substring(24)) : "[" + hex + "]");
                }
            }
        }
        return addresses;
    }

    private static String ipv4(String littleEndianHex) {
        long value = Long.parseLong(littleEndianHex, 16);
        return (value & 0xff) + "." + (value >> 8 & 0xff) + "." + (value >> 16 & 0xff) + "." + (value >> 24 & 0xff);
    }

    private static String pid(String service) throws IOException {
        return Files.readString(stackDir.resolve("run/" + service + ".pid")).strip();
    }

    private record Result(int exit, String output) {
    }

    private static Result run(Map<String, String> extra, String command) throws Exception {
        List<String> cmd = new ArrayList<>(List.of("bash", SCRIPT.toString(), command));
        ProcessBuilder builder = new ProcessBuilder(cmd).directory(Repo.ROOT.toFile()).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(k -> k.startsWith("IDENTITY_") || k.startsWith("QUARKUS_") || k.startsWith("AUTH_")
                || k.startsWith("REGISTRATION_") || k.equals("NO_RESTART") || k.equals("JAVA_OPTS"));
        Map<String, String> fixed = new HashMap<>(Map.of(
                "STACK_DIR", stackDir.toString(), "SKIP_BUILD", "1", "EXTERNAL_DB", "1", "DB_HOST", "127.0.0.1",
                "DB_PORT", System.getProperty("test.pgbouncer.port", "56433"),
                "DB_SCHEMA_PORT", System.getProperty("test.pg.port", "55433"),
                "AUTH_PORT", String.valueOf(authPort), "REGISTRATION_PORT", String.valueOf(registrationPort),
                "DEMO_DEVICES", "2"));
        fixed.put("JAVA_OPTS", "-Xmx256m");
        // Without a CPU limit the services hash under SCHED_IDLE (production's choice), which gets no CPU while
        // another process keeps every core busy: their start-up hash would never run on a busy CI machine. What
        // this test proves is stack.sh's behaviour, not the scheduling; so normal priority, and a readiness wait
        // that a slow JVM start cannot exceed.
        fixed.put("IDENTITY_OVERLOAD_BCRYPT_IDLE_PRIORITY", "false");
        fixed.put("READY_WAIT", "170");
        // The test stack is TLS-only: the services verify it against its CA (the root pom passes its path).
        fixed.put("IDENTITY_DB_SSLROOTCERT",
                System.getProperty("test.db.ca", Repo.ROOT.resolve(".local/test/tls/ca.crt").toString()));
        env.putAll(fixed);
        env.putAll(extra);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(400, TimeUnit.SECONDS), "stack.sh " + command + " hangs:\n" + output);
        return new Result(process.exitValue(), output);
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
