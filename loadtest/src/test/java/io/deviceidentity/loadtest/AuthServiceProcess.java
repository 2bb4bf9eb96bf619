package io.deviceidentity.loadtest;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.Map;

import io.deviceidentity.testsupport.TestDatabase;
import io.deviceidentity.testsupport.tls.LocalCa;

/**
 * The real auth-service, started from its packaged jar against the test stack's PgBouncer (reads) and PostgreSQL
 * (migration), on a free loopback port, serving {@code /mqtt/authn} over HTTPS as the chart does by default (a leaf
 * of a test CA made by scripts/local-ca.sh; {@link #ca()}). Stopped by {@link #close()}.
 */
final class AuthServiceProcess implements AutoCloseable {

    /** A fixed key for tests only (the fast path is on, as by default). */
    static final String TEST_FAST_PATH_KEYS = "smoke-1:c21va2UtdGVzdC1vbmx5LWZhc3QtcGF0aC1rZXktMDAwMDAwMDA=";

    private final Process process;
    private final int port;
    private final Path log;
    private final LocalCa ca;

    private AuthServiceProcess(Process process, int port, Path log, LocalCa ca) {
        this.process = process;
        this.port = port;
        this.log = log;
        this.ca = ca;
    }

    static AuthServiceProcess start(Path jar, int pgPort, int pgbouncerPort, Path log) throws Exception {
        if (!Files.isRegularFile(jar)) {
            throw new IllegalStateException(jar + " is missing: the reactor packages auth-service before this test");
        }
        // The service's management interface (health, metrics) defaults to its port + 1000, where the load tool's
        // --service-metrics auto scrapes: both ports must be free.
        int port = freePortWithManagementBeside();
        ProcessBuilder builder = new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Xmx256m", "-jar", jar.toString());
        Map<String, String> env = builder.environment();
        env.put("AUTH_HOST", "127.0.0.1");
        env.put("AUTH_PORT", Integer.toString(port));
        env.put("IDENTITY_DB_HOST", "127.0.0.1");
        env.put("IDENTITY_DB_PORT", Integer.toString(pgbouncerPort));
        env.put("IDENTITY_SCHEMA_MIGRATE", "true");
        env.put("IDENTITY_SCHEMA_PORT", Integer.toString(pgPort));
        // TLS to PgBouncer and PostgreSQL, verified against the test stack's CA (scripts/stack.sh).
        env.put("IDENTITY_DB_SSLROOTCERT", TestDatabase.ca().toString());
        env.put("QUARKUS_LOG_CATEGORY__IO_DEVICEIDENTITY_OUTCOME__LEVEL", "WARN");
        // As the services' own ITs: bcrypt at normal priority with long waits. Under SCHED_IDLE (the default without
        // a CPU limit) the start-up warm-up's hash got no CPU beside stress-ng and readiness never came.
        env.put("IDENTITY_OVERLOAD_BCRYPT_IDLE_PRIORITY", "false");
        env.put("IDENTITY_OVERLOAD_BCRYPT_MAX_WAIT", "30s");
        env.put("IDENTITY_OVERLOAD_BCRYPT_TARGET_WAIT", "30s");
        // Its own role (identity_auth, created by the test stack) is the default; the fast path needs a key.
        env.put("IDENTITY_AUTH_FAST_PATH_KEYS", TEST_FAST_PATH_KEYS);
        Files.createDirectories(log.getParent());
        LocalCa ca = LocalCa.in(Files.createTempDirectory(log.getParent(), "smoke-tls-")).issue("auth-service");
        env.put("IDENTITY_TLS_ENABLED", "true");
        env.put("IDENTITY_TLS_CERT_FILE", ca.certificate("auth-service").toString());
        env.put("IDENTITY_TLS_KEY_FILE", ca.key("auth-service").toString());
        builder.redirectErrorStream(true).redirectOutput(log.toFile());
        AuthServiceProcess service = new AuthServiceProcess(builder.start(), port, log, ca);
        // A bound, not a measurement: on a busy machine (load 45 on 2 cores) the JVM start, the migration over TLS
        // and the warm-up took more than 90 s before the service logged a line; on a quiet one it is ready in seconds.
        service.awaitReady(Duration.ofSeconds(240));
        return service;
    }

    URI authnUrl() {
        return URI.create("https://127.0.0.1:" + port + "/mqtt/authn");
    }

    /** The CA the service's certificate chains to: what the load tool's --ca-file names. */
    Path caFile() {
        return ca.caCertificate();
    }

    String metrics() throws IOException, InterruptedException {
        return HttpClient.newHttpClient().send(
                HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + (port + 1000) + "/q/metrics")).build(),
                HttpResponse.BodyHandlers.ofString()).body();
    }

    /**
     * Sends correct-password checks one at a time until one is answered within {@code fastEnough} (a fresh JVM
     * runs bcrypt interpreted at first, several seconds per hash on a busy machine), at most {@code attempts}.
     * Rotates over the devices so the per-device attempt limit is never reached. Returns the answers' times.
     */
    java.util.List<Long> warmUp(java.util.function.IntFunction<String> bodyOfDevice, int devices, int attempts,
            Duration fastEnough) throws Exception {
        HttpClient http = HttpClient.newBuilder().sslContext(ca.trustingClient()).build();
        java.util.List<Long> millis = new java.util.ArrayList<>();
        for (int i = 0; i < attempts; i++) {
            HttpRequest request = HttpRequest.newBuilder(authnUrl()).timeout(Duration.ofSeconds(20))
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(bodyOfDevice.apply(i % devices + 1))).build();
            long start = System.nanoTime();
            http.send(request, HttpResponse.BodyHandlers.discarding());
            long took = (System.nanoTime() - start) / 1_000_000;
            millis.add(took);
            if (took < fastEnough.toMillis()) {
                break;
            }
        }
        return millis;
    }

    private void awaitReady(Duration limit) throws Exception {
        HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(1)).build();
        HttpRequest ready = HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + (port + 1000) + "/q/health/ready"))
                .timeout(Duration.ofSeconds(2)).build();
        long until = System.nanoTime() + limit.toNanos();
        while (System.nanoTime() < until) {
            if (!process.isAlive()) {
                throw new IllegalStateException("auth-service exited; its log:\n" + Files.readString(log));
            }
            try {
                if (http.send(ready, HttpResponse.BodyHandlers.discarding()).statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(250);
        }
        close();
        throw new IllegalStateException("auth-service not ready within " + limit + "; its log:\n" + Files.readString(log));
    }

    /** A free loopback port below 64536 whose + 1000 is free too (ephemeral ports are high: retry a few). */
    private static int freePortWithManagementBeside() throws IOException {
        for (int attempt = 0; attempt < 50; attempt++) {
            int port;
            try (ServerSocket socket = new ServerSocket(0, 1, java.net.InetAddress.getLoopbackAddress())) {
                port = socket.getLocalPort();
            }
            if (port + 1000 > 65535) {
                continue;
            }
            try (ServerSocket beside = new ServerSocket(port + 1000, 1, java.net.InetAddress.getLoopbackAddress())) {
                return port;
            } catch (IOException taken) {
                // try another
            }
        }
        throw new IOException("no free loopback port with a free port 1000 above it");
    }

    @Override
    public void close() {
        process.destroy();
        try {
            if (!process.waitFor(15, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
            }
        } catch (InterruptedException interrupted) {
            process.destroyForcibly();
            Thread.currentThread().interrupt();
        }
    }
}
