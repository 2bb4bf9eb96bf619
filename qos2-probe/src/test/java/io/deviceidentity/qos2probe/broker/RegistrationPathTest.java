package io.deviceidentity.qos2probe.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.InetSocketAddress;
import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.atomic.AtomicBoolean;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.sun.net.httpserver.HttpServer;

import io.deviceidentity.qos2probe.mqtt.BrokerAddress;
import io.deviceidentity.qos2probe.probe.ProbeRun;
import io.deviceidentity.qos2probe.probe.ProbeSettings;
import io.deviceidentity.qos2probe.probe.ReconnectHook;
import io.deviceidentity.qos2probe.report.ProbeSummary;

/**
 * The Job's path up to the broker: the probe registers its devices the way registration-service expects
 * (PUT /v1/devices/{id}, bearer token, the subscriber's ACL, the publishers on the default ACL), retries a 503
 * after Retry-After, runs, and revokes every device. A stand-in HTTP server records the calls; the broker is an
 * anonymous Mosquitto (it cannot check the random passwords, auth-service does that in the cluster).
 */
@Timeout(120)
class RegistrationPathTest {

    private static final ObjectMapper JSON = new ObjectMapper();

    record Call(String method, String path, String authorization, JsonNode body) {
    }

    @Test
    void devicesAreRegisteredThenRevokedAndTheTokenStaysOutOfTheSummary() throws Exception {
        List<Call> calls = new CopyOnWriteArrayList<>();
        AtomicBoolean refusedOnce = new AtomicBoolean();
        HttpServer server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/devices/", exchange -> {
            byte[] body = exchange.getRequestBody().readAllBytes();
            calls.add(new Call(exchange.getRequestMethod(), exchange.getRequestURI().getPath(),
                    exchange.getRequestHeaders().getFirst("authorization"),
                    body.length == 0 ? null : JSON.readTree(body)));
            int status;
            if (exchange.getRequestMethod().equals("PUT") && refusedOnce.compareAndSet(false, true)) {
                exchange.getResponseHeaders().add("retry-after", "1");
                status = 503;
            } else {
                status = exchange.getRequestMethod().equals("PUT") ? 201 : 204;
            }
            exchange.sendResponseHeaders(status, -1);
            exchange.close();
        });
        server.start();
        Path dir = Files.createDirectories(Path.of("target", "mosquitto", "registration-" + System.currentTimeMillis()))
                .toAbsolutePath();
        try (Mosquitto broker = Mosquitto.start(dir, 18835, false)) {
            BrokerAddress address = BrokerAddress.parse(broker.address());
            URI url = URI.create("http://127.0.0.1:" + server.getAddress().getPort() + "/v1/devices");
            ProbeSettings settings = new ProbeSettings(address, address, address, 2, "qos2-probe-", "reg1", null,
                    Duration.ofSeconds(300), Duration.ofSeconds(5), Duration.ofSeconds(20), Duration.ofSeconds(3),
                    Duration.ofMillis(300), false, url, "the-token", true, null);
            ProbeSummary summary = new ProbeRun(settings, ReconnectHook.NONE,
                    new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8)).execute();
            String json = JSON.writeValueAsString(summary.json());
            assertTrue(summary.ok(), json + "\n" + calls);
            assertFalse(json.contains("the-token"), json);

            List<Call> puts = calls.stream().filter(c -> c.method().equals("PUT")).toList();
            // The subscriber twice (the 503, then its retry), then the two publishers.
            assertEquals(List.of("/v1/devices/qos2-probe-reg1-sub", "/v1/devices/qos2-probe-reg1-sub",
                    "/v1/devices/qos2-probe-reg1-pub-0", "/v1/devices/qos2-probe-reg1-pub-1"),
                    puts.stream().map(Call::path).toList());
            assertTrue(calls.stream().allMatch(c -> "Bearer the-token".equals(c.authorization())), calls.toString());
            JsonNode subscriber = puts.get(1).body();
            assertEquals("devices/+/qos2-probe/reg1", subscriber.path("acl").get(0).path("topic").asText());
            assertEquals("subscribe", subscriber.path("acl").get(0).path("action").asText());
            JsonNode publisher = puts.get(2).body();
            assertTrue(publisher.path("acl").isMissingNode(), "publishers keep the default ACL: " + publisher);
            assertTrue(publisher.path("password").asText().length() >= 20, "a random password per device");
            assertFalse(publisher.path("password").asText().equals(puts.get(3).body().path("password").asText()));

            assertEquals(List.of("/v1/devices/qos2-probe-reg1-sub", "/v1/devices/qos2-probe-reg1-pub-0",
                    "/v1/devices/qos2-probe-reg1-pub-1"),
                    calls.stream().filter(c -> c.method().equals("DELETE")).map(Call::path).toList());
        } finally {
            server.stop(0);
        }
    }
}
