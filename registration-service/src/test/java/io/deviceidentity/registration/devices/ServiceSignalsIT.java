package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.TOKEN;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.PreparedStatement;
import java.sql.ResultSet;
import java.time.Duration;
import java.util.List;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.deviceidentity.registration.support.Database;
import io.deviceidentity.testsupport.TestDatabase;

/**
 * The packaged JAR, started as a child process on the test stack, is signalled in the middle of a burst of PUTs.
 * SIGKILL: every PUT it had answered 2xx is stored, no client id has two rows, and a fresh process serves the same
 * devices. SIGTERM (a rolling update): readiness turns DOWN while the listener still answers, and every request
 * sent before the readiness went DOWN is answered in full (none reset). No timing is asserted; signals come after a
 * number of acknowledgements, not after a delay.
 */
class ServiceSignalsIT {

    private static final Path JAR = Path.of("target", "quarkus-app", "quarkus-run.jar");
    private static final int CLIENTS = 8;
    private static final int KILL_AFTER_ACKS = 40;

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void everyAcknowledgedPutSurvivesASigkillOfTheService() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "no JVM package (native build): " + JAR);
        String prefix = uniquePrefix("sigkill");
        int port = freePort();
        // Readiness is on the management interface, a port of its own; it closes with the service.
        int management = freePort();
        Process service = start(port, management);
        Queue<String> acknowledged = new ConcurrentLinkedQueue<>();
        AtomicInteger sent = new AtomicInteger();
        AtomicInteger other5xx = new AtomicInteger();
        CountDownLatch enough = new CountDownLatch(KILL_AFTER_ACKS);
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            awaitReady(management);
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                clients.submit(() -> {
                    for (int i = 0; i < 1000 && service.isAlive(); i++) {
                        String id = prefix + client + "-" + i;
                        sent.incrementAndGet();
                        int status = put(port, id);
                        if (status >= 200 && status < 300) {
                            acknowledged.add(id);
                            enough.countDown();
                        } else if (status >= 500 && status != 503) {
                            other5xx.incrementAndGet();
                        }
                    }
                    return null;
                });
            }
            assertTrue(enough.await(120, TimeUnit.SECONDS), "only " + acknowledged.size() + " PUTs acknowledged");
            service.destroyForcibly(); // SIGKILL on Linux: no shutdown hook, no draining
            service.waitFor(30, TimeUnit.SECONDS);
        } finally {
            clients.shutdown();
            clients.awaitTermination(60, TimeUnit.SECONDS);
            service.destroyForcibly();
        }

        List<String> acked = List.copyOf(acknowledged);
        assertTrue(sent.get() > acked.size() || acked.size() >= KILL_AFTER_ACKS);
        assertEquals(0, other5xx.get(), "5xx other than 503 before the kill");
        for (String id : acked) {
            assertTrue(Database.row(id).isPresent(), "acknowledged " + id + " is missing after the SIGKILL");
        }
        assertEquals(0, duplicatedIds(prefix), "a client id has more than one row");
        assertTrue(Database.countWithPrefix(prefix) >= acked.size());

        Process again = start(port, management);
        try {
            awaitReady(management);
            HttpResponse<String> read = http.send(request(port, acked.get(0)).GET().build(),
                    HttpResponse.BodyHandlers.ofString());
            assertEquals(200, read.statusCode(), read.body());
        } finally {
            again.destroy();
            again.waitFor(30, TimeUnit.SECONDS);
        }
    }

    @Test
    void sigtermTurnsReadinessDownFirstAndAnswersEveryAcceptedRequest() throws Exception {
        assumeTrue(Files.isRegularFile(JAR), "no JVM package (native build): " + JAR);
        String prefix = uniquePrefix("sigterm");
        int port = freePort();
        // Readiness is on the management interface, a port of its own; it closes with the service.
        int management = freePort();
        Process service = start(port, management);
        java.util.concurrent.atomic.AtomicBoolean routed = new java.util.concurrent.atomic.AtomicBoolean(true);
        Queue<String> broken = new ConcurrentLinkedQueue<>();
        AtomicInteger answered = new AtomicInteger();
        CountDownLatch enough = new CountDownLatch(KILL_AFTER_ACKS);
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        boolean readinessWentDown = false;
        boolean listenerClosedAfterwards = false;
        try {
            awaitReady(management);
            for (int c = 0; c < CLIENTS; c++) {
                int client = c;
                clients.submit(() -> {
                    // Like a Service endpoint: routed here until readiness is seen DOWN.
                    for (int i = 0; routed.get(); i++) {
                        String id = prefix + client + "-" + i;
                        try {
                            HttpResponse<String> answer = http.send(request(port, id)
                                    .header("Content-Type", "application/json")
                                    .PUT(HttpRequest.BodyPublishers.ofString("{\"password\":\"sigterm-password-padde\"}"))
                                    .build(), HttpResponse.BodyHandlers.ofString());
                            answered.incrementAndGet();
                            if (answer.statusCode() >= 500 && answer.statusCode() != 503) {
                                broken.add(id + ": " + answer.statusCode());
                            }
                            enough.countDown();
                        } catch (IOException e) {
                            broken.add(id + ": " + e);
                        }
                    }
                    return null;
                });
            }
            assertTrue(enough.await(120, TimeUnit.SECONDS), "the burst was not answered");
            service.destroy(); // SIGTERM
            long until = System.nanoTime() + 60_000_000_000L;
            while (System.nanoTime() < until) {
                int ready = readiness(management);
                if (ready == 503) {
                    readinessWentDown = true;
                    routed.set(false);
                } else if (ready < 0) {
                    listenerClosedAfterwards = readinessWentDown;
                    break;
                }
                Thread.sleep(50);
            }
        } finally {
            routed.set(false);
            clients.shutdown();
            clients.awaitTermination(60, TimeUnit.SECONDS);
            service.destroyForcibly();
        }
        assertTrue(readinessWentDown, "readiness never reported DOWN after SIGTERM");
        assertTrue(listenerClosedAfterwards, "the listener closed before readiness went DOWN");
        assertTrue(answered.get() >= KILL_AFTER_ACKS);
        assertEquals(List.of(), List.copyOf(broken), "requests sent while routed were not answered in full");
    }

    /** Status of /q/health/ready on the management port, or -1 when nothing listens. */
    private int readiness(int management) throws InterruptedException {
        try {
            return http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + management + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException closed) {
            return -1;
        }
    }

    private Process start(int port, int management) throws IOException {
        Path log = Files.createDirectories(Path.of("target", "sigkill-it")).resolve("service-" + System.nanoTime() + ".log");
        return new ProcessBuilder(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
                "-Dquarkus.http.port=" + port, "-Dquarkus.http.host=127.0.0.1",
                "-Didentity.management.port=" + management,
                "-Didentity.db.port=" + System.getProperty("test.pgbouncer.port", "56433"),
                "-Didentity.schema.port=" + System.getProperty("test.pg.port", "55433"),
                "-Didentity.db.sslrootcert=" + TestDatabase.ca(),
                "-Didentity.registration.tokens=" + TOKEN,
                "-Didentity.registration.bcrypt-cost=4",
                "-Dquarkus.log.category.\"io.deviceidentity.outcome\".level=WARN",
                // As PackagedAppOnTestStack: a SCHED_IDLE warm-up hash gets no CPU beside other busy processes.
                "-Didentity.overload.bcrypt.idle-priority=false",
                "-Didentity.overload.bcrypt.max-wait=30s", "-Didentity.overload.bcrypt.target-wait=30s",
                "-jar", JAR.toString())
                .redirectErrorStream(true).redirectOutput(log.toFile()).start();
    }

    private void awaitReady(int management) throws InterruptedException {
        long until = System.nanoTime() + 90_000_000_000L;
        while (System.nanoTime() < until) {
            try {
                HttpResponse<Void> ready = http.send(HttpRequest.newBuilder(
                        URI.create("http://127.0.0.1:" + management + "/q/health/ready")).build(),
                        HttpResponse.BodyHandlers.discarding());
                if (ready.statusCode() == 200) {
                    return;
                }
            } catch (IOException notYet) {
                // not listening yet
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the packaged service did not become ready (management port " + management + ")");
    }

    private int put(int port, String id) {
        try {
            return http.send(request(port, id).header("Content-Type", "application/json")
                    .PUT(HttpRequest.BodyPublishers.ofString("{\"password\":\"sigkill-password-padde\"}")).build(),
                    HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException killed) {
            return -1; // connection refused or reset: not acknowledged
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
            return -1;
        }
    }

    private static HttpRequest.Builder request(int port, String id) {
        return HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + port + "/v1/devices/" + id))
                .timeout(Duration.ofSeconds(10)).header("Authorization", "Bearer " + TOKEN);
    }

    private static int duplicatedIds(String prefix) throws Exception {
        try (Connection connection = Database.connect(); PreparedStatement query = connection.prepareStatement(
                "SELECT count(*) FROM (SELECT client_id FROM device_credentials WHERE client_id LIKE ?"
                        + " GROUP BY client_id HAVING count(*) > 1) d")) {
            query.setString(1, prefix + "%");
            try (ResultSet row = query.executeQuery()) {
                row.next();
                return row.getInt(1);
            }
        }
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
