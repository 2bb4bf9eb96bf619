package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.DataOutputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.net.InetAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;
import javax.net.ssl.SSLSocket;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import io.deviceidentity.testsupport.tls.LocalCa;

/**
 * The chart's certificate reloader (helm/device-identity/files/tls-reload.sh, run in the PostgreSQL pod's roles
 * container and beside PgBouncer) against a real PostgreSQL and a real PgBouncer of a stack of its own: a certificate
 * renewed in place is not served until someone reloads, and with the script running it is served by the same
 * processes (no restart), through the same commands the chart gives it (pg_reload_conf(), PgBouncer's RELOAD).
 */
class TlsReloadScriptTest {

    private static final Path STACK = Repo.ROOT.resolve("scripts/stack.sh");
    private static final Path RELOADER = Repo.ROOT.resolve("helm/device-identity/files/tls-reload.sh");
    /** Generous: waiting for an event (the reload), not a claim about how fast it is. */
    private static final Duration AT_MOST = Duration.ofSeconds(90);

    private static Path stackDir;
    private static int pgPort;
    private static int pgbouncerPort;
    private static LocalCa ca;
    private static SSLContext client;

    @BeforeAll
    static void startAStackOfItsOwn() throws Exception {
        assumeTrue(Files.isDirectory(Path.of("/usr/lib/postgresql")), "no PostgreSQL server installed");
        Path target = Files.createDirectories(Repo.ROOT.resolve("build-checks/target"));
        stackDir = Files.createTempDirectory(target.toAbsolutePath(), "tls-reload-");
        pgPort = freePort();
        pgbouncerPort = freePort();
        String up = stack("db-up");
        ca = LocalCa.in(stackDir.resolve("tls"));
        client = ca.trustingClient();
        assertTrue(served(pgPort) != null, up);
    }

    @AfterAll
    static void stopIt() throws Exception {
        if (stackDir != null) {
            stack("db-down");
        }
    }

    @Test
    void aRenewedPostgresqlCertificateIsServedAfterTheScriptReloadsWithoutARestart() throws Exception {
        String postmaster = Files.readAllLines(stackDir.resolve("pg/postmaster.pid")).get(0);
        BigInteger before = served(pgPort).getSerialNumber();
        Process reloader = reloader("psql -X -q -v ON_ERROR_STOP=1 -h '" + socketDir() + "' -p " + pgPort
                + " -U postgres -d postgres -c 'SELECT pg_reload_conf()'", "postgres");
        try {
            BigInteger renewed = renew("postgres");
            assertNotEquals(before, renewed);
            assertEquals(renewed, servedOnceReloaded(pgPort, renewed), "PostgreSQL serves the renewed certificate");
            assertEquals(postmaster, Files.readAllLines(stackDir.resolve("pg/postmaster.pid")).get(0),
                    "the same postmaster: reloaded, not restarted");
        } finally {
            stop(reloader);
        }
        assertTrue(log(reloader).contains("certificate files changed: reloaded"), log(reloader));
    }

    @Test
    void aRenewedPgbouncerCertificateIsServedAfterTheScriptSendsReloadWithoutARestart() throws Exception {
        String pid = Files.readString(stackDir.resolve("run/pgbouncer.pid")).trim();
        BigInteger before = served(pgbouncerPort).getSerialNumber();
        // As the chart's sidecar does: RELOAD on the admin console, over TLS, as a console admin user.
        Process reloader = reloader("PGPASSWORD=identity-local-dev psql -X -q 'host=127.0.0.1 port=" + pgbouncerPort
                + " dbname=pgbouncer user=identity sslmode=require' -c RELOAD", "pgbouncer");
        try {
            BigInteger renewed = renew("pgbouncer");
            assertNotEquals(before, renewed);
            assertEquals(renewed, servedOnceReloaded(pgbouncerPort, renewed), "PgBouncer serves the renewed certificate");
            assertEquals(pid, Files.readString(stackDir.resolve("run/pgbouncer.pid")).trim(), "the same PgBouncer");
        } finally {
            stop(reloader);
        }
    }

    @Test
    void withoutAReloadTheServersKeepServingTheOldCertificate() throws Exception {
        BigInteger before = served(pgPort).getSerialNumber();
        BigInteger renewed = renew("postgres");
        Thread.sleep(2000);
        assertEquals(before, served(pgPort).getSerialNumber(),
                "PostgreSQL picked the file up by itself: the reload tests above would prove nothing");
        // Leave the stack consistent for the other tests: the files and what is served agree again.
        reloadNow("psql -X -q -h '" + socketDir() + "' -p " + pgPort + " -U postgres -d postgres -c 'SELECT pg_reload_conf()'");
        assertEquals(renewed, servedOnceReloaded(pgPort, renewed));
    }

    @Test
    void aFailingReloadCommandIsRetriedAndItsArgumentsAreChecked() throws Exception {
        Path flag = stackDir.resolve("reload-attempts");
        Path file = Files.writeString(stackDir.resolve("watched.pem"), "one");
        Process reloader = start(List.of("sh", RELOADER.toString(), "1", "echo x >> '" + flag + "'; exit 1",
                file.toString()));
        try {
            awaitLog(reloader, "watching");
            Files.writeString(file, "two");
            Instant end = Instant.now().plus(AT_MOST);
            while (attempts(flag) < 2 && Instant.now().isBefore(end)) {
                Thread.sleep(200);
            }
            assertTrue(attempts(flag) >= 2, "a failed reload is tried again at the next period: " + log(reloader));
        } finally {
            stop(reloader);
        }
        assertTrue(log(reloader).contains("the reload failed"), log(reloader));
        for (List<String> wrong : List.of(List.of("0", "true", "a.pem"), List.of("x", "true", "a.pem"),
                List.of("5", "true"))) {
            List<String> command = new ArrayList<>(List.of("sh", RELOADER.toString()));
            command.addAll(wrong);
            Process refused = start(command);
            assertTrue(refused.waitFor(30, TimeUnit.SECONDS));
            assertEquals(2, refused.exitValue(), "usage error for " + wrong);
        }
    }

    // ----- the stack, the script, the served certificate --------------------------------------------------------

    private static String stack(String command) throws Exception {
        ProcessBuilder builder = new ProcessBuilder(List.of("bash", STACK.toString(), command, "dev"))
                .directory(Repo.ROOT.toFile()).redirectErrorStream(true);
        Map<String, String> env = builder.environment();
        env.keySet().removeIf(k -> k.endsWith("_PORT") || k.equals("EXTERNAL_DB") || k.equals("STACK_DIR"));
        env.putAll(Map.of("STACK_DIR", stackDir.toString(), "PG_PORT", String.valueOf(pgPort),
                "PGBOUNCER_PORT", String.valueOf(pgbouncerPort)));
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(180, TimeUnit.SECONDS), "stack.sh " + command + " did not finish");
        assertEquals(0, process.exitValue(), output);
        return output;
    }

    /** The directory of the stack's PostgreSQL socket: its run directory, or /tmp/di-… when that path is too long. */
    private static String socketDir() throws IOException {
        Path run = stackDir.resolve("run");
        String socket = ".s.PGSQL." + pgPort;
        if (Files.exists(run.resolve(socket))) {
            return run.toString();
        }
        try (var found = Files.find(Path.of("/tmp"), 2, (p, a) -> p.getFileName().toString().equals(socket))) {
            return found.findFirst().map(p -> p.getParent().toString()).orElse(run.toString());
        }
    }

    /** The reloader as the chart runs it: a period of 1 s here, the certificate and key of {@code name}. */
    private static Process reloader(String command, String name) throws Exception {
        Path tls = stackDir.resolve("tls");
        Process process = start(List.of("sh", RELOADER.toString(), "1", command,
                tls.resolve(name + ".crt").toString(), tls.resolve(name + ".key").toString()));
        awaitLog(process, "watching");
        return process;
    }

    private static void reloadNow(String command) throws Exception {
        Process process = start(List.of("sh", "-c", command));
        assertTrue(process.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, process.exitValue(), log(process));
    }

    private static final Map<Process, Path> LOGS = new ConcurrentHashMap<>();

    /** Starts {@code command} with its output in a file of its own ({@link #log}). */
    private static Process start(List<String> command) throws IOException {
        Path out = Files.createTempFile(stackDir, "process-", ".log");
        Process process = new ProcessBuilder(command).redirectErrorStream(true).redirectOutput(out.toFile()).start();
        LOGS.put(process, out);
        return process;
    }

    private static String log(Process process) throws IOException {
        return Files.readString(LOGS.get(process));
    }

    private static void awaitLog(Process process, String line) throws Exception {
        Instant end = Instant.now().plus(AT_MOST);
        while (!log(process).contains(line) && process.isAlive() && Instant.now().isBefore(end)) {
            Thread.sleep(100);
        }
        assertTrue(log(process).contains(line), log(process));
    }

    private static void stop(Process process) throws Exception {
        process.destroy(); // SIGTERM: the script's trap exits 0
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "the reloader did not stop on TERM");
        assertEquals(0, process.exitValue(), log(process));
    }

    private static int attempts(Path flag) throws IOException {
        return Files.exists(flag) ? Files.readAllLines(flag).size() : 0;
    }

    /**
     * Re-issues {@code name}'s leaf as a renewal reaches a pod: made elsewhere with the owner and mode the server
     * needs, then moved into place (a Secret volume swaps its files atomically too). Issuing in place would let the
     * watcher see the new content while the key is still unreadable by the server, and a later chown changes no
     * content for it to see.
     */
    private static BigInteger renew(String name) throws Exception {
        Path tls = stackDir.resolve("tls");
        Path staging = Files.createTempDirectory(stackDir, "renew-");
        Files.copy(tls.resolve("ca.crt"), staging.resolve("ca.crt"));
        Files.copy(tls.resolve("ca.key"), staging.resolve("ca.key"));
        String issue = "set -e; '" + Repo.ROOT.resolve("scripts/local-ca.sh") + "' issue '" + staging + "' " + name
                + "; cd '" + staging + "'; chmod 600 " + name + ".key; if [ \"$(id -u)\" = 0 ]; then chown postgres: "
                + name + ".crt " + name + ".key; fi; mv -f " + name + ".key '" + tls + "/'; mv -f " + name + ".crt '"
                + tls + "/'";
        Process renewal = start(List.of("sh", "-c", issue));
        assertTrue(renewal.waitFor(60, TimeUnit.SECONDS));
        assertEquals(0, renewal.exitValue(), log(renewal));
        return ca.leaf(name).getSerialNumber();
    }

    private static BigInteger servedOnceReloaded(int port, BigInteger expected) throws Exception {
        Instant end = Instant.now().plus(AT_MOST);
        BigInteger now = served(port).getSerialNumber();
        while (!now.equals(expected) && Instant.now().isBefore(end)) {
            Thread.sleep(200);
            now = served(port).getSerialNumber();
        }
        return now;
    }

    /** The certificate a PostgreSQL-protocol server presents after SSLRequest, verified against the stack's CA. */
    private static X509Certificate served(int port) throws IOException {
        try (Socket raw = new Socket(InetAddress.getLoopbackAddress(), port)) {
            DataOutputStream out = new DataOutputStream(raw.getOutputStream());
            out.writeInt(8);
            out.writeInt(80877103); // SSLRequest
            out.flush();
            int answer = raw.getInputStream().read();
            if (answer != 'S') {
                throw new IOException("no TLS on port " + port + ": answered " + answer);
            }
            try (SSLSocket tls = (SSLSocket) client.getSocketFactory().createSocket(raw, "localhost", port, true)) {
                tls.startHandshake();
                return (X509Certificate) tls.getSession().getPeerCertificates()[0];
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
