package io.deviceidentity.auth.authn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.net.ServerSocket;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deviceidentity.testsupport.tls.LocalCa;

/**
 * The answer floor's server as {@code make bench} starts it: the argument list bench-pods.sh's floor_args prints
 * (run by bash) is the one parsed here, and the server it describes answers over verified HTTPS with the service's own
 * storm refusal.
 */
class AnswerFloorServerTest {

    private static final String BODY = "{\"clientid\":\"bench-floor-1\",\"username\":\"\",\"password\":\"p\","
            + "\"peerhost\":\"127.0.0.1\"}";

    @Test
    void theBenchsArgumentsStartAnHttpsServerAnsweringTheServicesOverloadRefusal(@TempDir Path stack) throws Exception {
        LocalCa ca = LocalCa.in(stack.resolve("tls")).issue("bench-auth-service");
        int port = freePort();

        AnswerFloorServer.Settings settings = AnswerFloorServer.parse(floorArgs(stack, port, 1).toArray(String[]::new));

        // A pod of one CPU: the two event loops Quarkus gives the service there, and its certificate.
        assertEquals(2, settings.eventLoops());
        assertEquals(stack.resolve("tls/bench-auth-service.crt").toString(), settings.cert());
        try (AnswerFloorServer server = AnswerFloorServer.start(settings)) {
            assertEquals(2, server.instances());
            HttpClient client = HttpClient.newBuilder().sslContext(ca.trustingClient()).build();
            for (int i = 0; i < 3; i++) {
                HttpResponse<String> answer = client.send(HttpRequest.newBuilder(
                        URI.create("https://localhost:" + port + "/mqtt/authn"))
                        .header("content-type", "application/json")
                        .POST(HttpRequest.BodyPublishers.ofString(BODY)).build(), HttpResponse.BodyHandlers.ofString());
                assertEquals(503, answer.statusCode());
                assertTrue(answer.body().startsWith("{\"reason\":\"overload\""), answer.body());
                assertEquals("1", answer.headers().firstValue("Retry-After").orElse(null));
            }
        }
    }

    @Test
    void withoutTlsTheBenchGivesNoCertificateAndTheServerServesPlainHttp(@TempDir Path stack) throws Exception {
        int port = freePort();
        List<String> args = floorArgs(stack, port, 2, "BENCH_POD_TLS=0");

        AnswerFloorServer.Settings settings = AnswerFloorServer.parse(args.toArray(String[]::new));

        assertEquals(List.of("--port", String.valueOf(port), "--event-loops", "4"), args);
        try (AnswerFloorServer server = AnswerFloorServer.start(settings)) {
            HttpResponse<String> answer = HttpClient.newHttpClient().send(HttpRequest.newBuilder(
                    URI.create("http://127.0.0.1:" + port + "/mqtt/authn"))
                    .POST(HttpRequest.BodyPublishers.ofString(BODY)).build(), HttpResponse.BodyHandlers.ofString());
            assertEquals(503, answer.statusCode());
        }
    }

    @Test
    void anIncompleteOrUnknownArgumentListIsRefused() {
        assertThrows(IllegalArgumentException.class, () -> AnswerFloorServer.parse("--port", "8091"));
        assertThrows(IllegalArgumentException.class,
                () -> AnswerFloorServer.parse("--port", "8091", "--event-loops", "2", "--cert", "tls.crt"));
        assertThrows(IllegalArgumentException.class, () -> AnswerFloorServer.parse("--port", "0", "--event-loops", "2"));
        assertThrows(IllegalArgumentException.class, () -> AnswerFloorServer.parse("--port", "8091", "--event-loops",
                "two"));
        assertThrows(IllegalArgumentException.class,
                () -> AnswerFloorServer.parse("--port", "8091", "--event-loops", "2", "--verbose", "yes"));
        assertThrows(IllegalArgumentException.class, () -> AnswerFloorServer.parse("--port"));
    }

    /** What bench-pods.sh's floor_args prints for a pod of {@code threads} CPUs, one argument a line. */
    private static List<String> floorArgs(Path stack, int port, int threads, String... environment) throws Exception {
        Path benchPods = Path.of(System.getProperty("stack.script", "../../scripts/stack.sh"))
                .resolveSibling("bench-pods.sh");
        ProcessBuilder bash = new ProcessBuilder("bash", "-c",
                "set -euo pipefail; BENCH_POD_TLS=1; STACK_DIR=\"$1\"; for e in \"${@:4}\"; do eval \"$e\"; done; "
                        + "source \"$2\"; floor_args \"$3\" " + threads,
                "floor_args", stack.toString(), benchPods.toString(), String.valueOf(port));
        bash.command().addAll(List.of(environment));
        Process process = bash.redirectErrorStream(true).start();
        String printed = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(30, TimeUnit.SECONDS), "bash did not finish");
        assertEquals(0, process.exitValue(), printed);
        return printed.lines().toList();
    }

    private static int freePort() throws IOException {
        try (ServerSocket socket = new ServerSocket(0)) {
            return socket.getLocalPort();
        }
    }
}
