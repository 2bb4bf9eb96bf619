package io.deviceidentity.testsupport.tls;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

/**
 * A real PgBouncer of a test's own, in front of the test stack's PostgreSQL, on a free loopback port: TLS-only
 * towards clients with the key and certificate the test chose, and verify-full towards PostgreSQL against the CA the
 * test chose. Runs as the database user when the test runs as root (PgBouncer refuses root), in the foreground;
 * {@link #close()} stops it.
 */
final class ThrowawayPgBouncer implements AutoCloseable {

    private final Process process;
    private final int port;
    private final Path dir;

    private ThrowawayPgBouncer(Process process, int port, Path dir) {
        this.process = process;
        this.port = port;
        this.dir = dir;
    }

    /** {@code tls} holds {@code <serverName>.crt/.key}; PostgreSQL is verified against {@code serverCa}. */
    static ThrowawayPgBouncer start(Path tls, String serverName, Path serverCa, int postgresPort) throws Exception {
        Path dir = tls.resolve("pgbouncer-" + serverName);
        Files.createDirectories(dir);
        int port = freePort();
        Files.writeString(dir.resolve("userlist.txt"), "\"identity\" \"identity-local-dev\"\n");
        Files.writeString(dir.resolve("pgbouncer.ini"), String.join("\n",
                "[databases]",
                "identity = host=127.0.0.1 port=" + postgresPort + " dbname=identity",
                "[pgbouncer]",
                "listen_addr = 127.0.0.1",
                "listen_port = " + port,
                "unix_socket_dir =",
                "auth_type = scram-sha-256",
                "auth_file = " + dir.resolve("userlist.txt"),
                "pool_mode = transaction",
                "ignore_startup_parameters = extra_float_digits",
                "client_tls_sslmode = require",
                "client_tls_key_file = " + tls.resolve(serverName + ".key"),
                "client_tls_cert_file = " + tls.resolve(serverName + ".crt"),
                "server_tls_sslmode = verify-full",
                "server_tls_ca_file = " + serverCa,
                "server_connect_timeout = 3",
                "server_login_retry = 1",
                "query_wait_timeout = 3",
                "logfile = " + dir.resolve("pgbouncer.log"),
                ""));
        LocalCa.handToDatabaseUser(tls);
        List<String> command = new ArrayList<>();
        if (LocalCa.isRoot()) {
            command.addAll(List.of("runuser", "-u", "postgres", "--"));
        }
        command.addAll(List.of("pgbouncer", dir.resolve("pgbouncer.ini").toString()));
        Process process = new ProcessBuilder(command).redirectErrorStream(true)
                .redirectOutput(dir.resolve("stdout.log").toFile()).start();
        ThrowawayPgBouncer bouncer = new ThrowawayPgBouncer(process, port, dir);
        bouncer.awaitListening();
        return bouncer;
    }

    int port() {
        return port;
    }

    String log() {
        Path log = dir.resolve("pgbouncer.log");
        try {
            return Files.exists(log) ? Files.readString(log) : "";
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    private void awaitListening() throws Exception {
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < until) {
            if (!process.isAlive()) {
                throw new IllegalStateException("PgBouncer exited: " + Files.readString(dir.resolve("stdout.log"))
                        + log());
            }
            try (Socket socket = new Socket()) {
                socket.connect(new InetSocketAddress("127.0.0.1", port), 500);
                return;
            } catch (IOException notYet) {
                Thread.sleep(100);
            }
        }
        throw new IllegalStateException("PgBouncer did not listen on 127.0.0.1:" + port + ": " + log());
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }

    @Override
    public void close() throws InterruptedException {
        process.destroy();
        if (!process.waitFor(10, TimeUnit.SECONDS)) {
            process.destroyForcibly().waitFor(10, TimeUnit.SECONDS);
        }
    }
}
