package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.TOKEN;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

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
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Queue;
import java.util.concurrent.ConcurrentLinkedQueue;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.Test;

import io.deviceidentity.registration.support.Database;
import io.deviceidentity.testsupport.PackagedService;
import io.deviceidentity.testsupport.TestDatabase;

/**
 * The packaged service (JAR or native executable, whichever the run tests: {@link PackagedService}), started as a
 * child process on the test stack, is signalled in the middle of a burst of PUTs.
 * SIGKILL: every PUT it had answered 2xx is stored, no client id has two rows, and a fresh process serves the same
 * devices. SIGTERM (a rolling update): readiness turns DOWN while the listener still answers, and every request
 * sent before the readiness went DOWN is answered in full (none reset), and the process then exits by itself as the
 * JVM does on SIGTERM (status 143, after Quarkus's shutdown). No timing is asserted; signals come after a
 * number of acknowledgements, not after a delay.
 */
class ServiceSignalsIT {

    private static final int CLIENTS = 8;
    private static final int KILL_AFTER_ACKS = 40;
    private static final Duration READY_PATIENCE = Duration.ofSeconds(90);

    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    @Test
    void everyAcknowledgedPutSurvivesASigkillOfTheService() throws Exception {
        String prefix = uniquePrefix("sigkill");
        int port = freePort();
        // Readiness is on the management interface, a port of its own; it closes with the service.
        int management = freePort();
        Path log = log();
        Process service = start(port, management, log);
        Queue<String> acknowledged = new ConcurrentLinkedQueue<>();
        AtomicInteger sent = new AtomicInteger();
        AtomicInteger other5xx = new AtomicInteger();
        CountDownLatch enough = new CountDownLatch(KILL_AFTER_ACKS);
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        try {
            PackagedService.awaitReady(service, management, log, READY_PATIENCE);
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

        Path againLog = log();
        Process again = start(port, management, againLog);
        try {
            PackagedService.awaitReady(again, management, againLog, READY_PATIENCE);
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
        String prefix = uniquePrefix("sigterm");
        int port = freePort();
        // Readiness is on the management interface, a port of its own; it closes with the service.
        int management = freePort();
        Path log = log();
        Process service = start(port, management, log);
        java.util.concurrent.atomic.AtomicBoolean routed = new java.util.concurrent.atomic.AtomicBoolean(true);
        Queue<String> broken = new ConcurrentLinkedQueue<>();
        AtomicInteger answered = new AtomicInteger();
        CountDownLatch enough = new CountDownLatch(KILL_AFTER_ACKS);
        ExecutorService clients = Executors.newFixedThreadPool(CLIENTS);
        PackagedService.Termination termination;
        try {
            PackagedService.awaitReady(service, management, log, READY_PATIENCE);
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
            termination = PackagedService.terminate(service, management, () -> routed.set(false));
        } finally {
            routed.set(false);
            clients.shutdown();
            clients.awaitTermination(60, TimeUnit.SECONDS);
            service.destroyForcibly();
        }
        assertTrue(termination.readinessWentDown(), "readiness never reported DOWN after SIGTERM");
        assertTrue(termination.listenerClosedAfterwards(), "the listener closed before readiness went DOWN");
        assertTrue(answered.get() >= KILL_AFTER_ACKS);
        assertEquals(List.of(), List.copyOf(broken), "requests sent while routed were not answered in full");
        assertEquals(143, termination.exitStatus(),
                "exit status after SIGTERM (128 + 15, as the JVM's; -1: still running): see " + log);
        assertTrue(Files.readString(log).contains(" stopped in "), "Quarkus's shutdown did not run: see " + log);
    }

    private static Path log() {
        return Path.of("target", "sigkill-it", "service-" + System.nanoTime() + ".log");
    }

    private Process start(int port, int management, Path log) throws IOException {
        Map<String, String> settings = new HashMap<>(Map.of(
                "quarkus.http.port", Integer.toString(port), "quarkus.http.host", "127.0.0.1",
                "identity.management.port", Integer.toString(management),
                "identity.db.port", System.getProperty("test.pgbouncer.port", "56433"),
                "identity.schema.port", System.getProperty("test.pg.port", "55433"),
                "identity.db.sslrootcert", TestDatabase.ca().toString(),
                "identity.registration.tokens", TOKEN,
                "identity.registration.bcrypt-cost", "4",
                "quarkus.log.category.\"io.deviceidentity.outcome\".level", "WARN"));
        // As PackagedAppOnTestStack: a SCHED_IDLE warm-up hash gets no CPU beside other busy processes.
        settings.put("identity.overload.bcrypt.idle-priority", "false");
        settings.put("identity.overload.bcrypt.max-wait", "30s");
        settings.put("identity.overload.bcrypt.target-wait", "30s");
        return PackagedService.underTest().start(List.of(), settings, log);
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
