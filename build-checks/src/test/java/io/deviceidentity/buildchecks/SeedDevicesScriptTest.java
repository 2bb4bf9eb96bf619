package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;

/**
 * The load-test Job's seed-devices script (k8s/jobs/loadtest-job.yaml), exactly as the YAML holds it, run with
 * /bin/sh against a stand-in of registration-service's PUT/GET /v1/devices/{id}: it registers the missing devices
 * with the shared password and the first bearer token, skips active ones, re-activates revoked ones, retries a 503,
 * and fails on any other answer.
 */
class SeedDevicesScriptTest {

    private HttpServer server;
    private final Map<String, String> passwords = new ConcurrentHashMap<>();
    private final Map<String, String> status = new ConcurrentHashMap<>();
    private final AtomicInteger puts = new AtomicInteger();
    private final AtomicInteger overloadFirstPuts = new AtomicInteger();
    private volatile int answerToEveryPut;
    /** What the Job's Secret holds under "tokens": the chart writes <id>:<scopes>:<token>, comma-separated. */
    private String tokens = "admin:read+write+superuser+import-replace:first-token,reader:read:second-token";

    @TempDir
    Path dir;

    @BeforeEach
    void start() throws Exception {
        server = HttpServer.create(new InetSocketAddress("127.0.0.1", 0), 0);
        server.createContext("/v1/devices/", this::handle);
        server.start();
    }

    @AfterEach
    void stop() {
        server.stop(0);
    }

    private void handle(HttpExchange exchange) throws java.io.IOException {
        String id = exchange.getRequestURI().getPath().substring("/v1/devices/".length());
        String auth = exchange.getRequestHeaders().getFirst("authorization");
        String body = new String(exchange.getRequestBody().readAllBytes(), StandardCharsets.UTF_8);
        int code;
        String answer;
        if (!"Bearer first-token".equals(auth)) {
            code = 401;
            answer = "{\"error\":\"unauthorized\"}";
        } else if (exchange.getRequestMethod().equals("GET")) {
            code = status.containsKey(id) ? 200 : 404;
            answer = code == 200 ? "{\"client_id\":\"" + id + "\",\"status\":\"" + status.get(id) + "\"}" : "{\"error\":\"not_found\"}";
        } else if (answerToEveryPut != 0) {
            code = answerToEveryPut;
            answer = "{\"error\":\"invalid_password\"}";
        } else if (overloadFirstPuts.getAndDecrement() > 0) {
            code = 503;
            answer = "{\"result\":\"unavailable\",\"reason\":\"overload\"}";
        } else {
            JsonNode json = Repo.YAML.readTree(body);
            passwords.put(id, json.path("password").asText());
            code = status.put(id, "active") == null ? 201 : 200;
            puts.incrementAndGet();
            answer = "{\"client_id\":\"" + id + "\",\"status\":\"active\"}";
        }
        byte[] bytes = answer.getBytes(StandardCharsets.UTF_8);
        exchange.getResponseHeaders().set("content-type", "application/json");
        exchange.sendResponseHeaders(code, bytes.length);
        exchange.getResponseBody().write(bytes);
        exchange.close();
    }

    @Test
    void registersTheMissingDevicesWithTheSharedPasswordAndSkipsActiveOnes() throws Exception {
        status.put("load-2", "active");
        passwords.put("load-2", "old");
        status.put("load-3", "revoked");
        overloadFirstPuts.set(1);
        Run run = seed(5);
        assertEquals(0, run.exit(), run.output());
        String shared = "load-shared-device-password";
        assertEquals(Map.of("load-1", shared, "load-2", "old", "load-3", shared, "load-4", shared, "load-5", shared),
                passwords);
        assertEquals(4, puts.get(), "one PUT per missing or revoked device");
        assertTrue(run.output().contains("devices ready: 4 registered, 1 already active"), run.output());

        Run again = seed(5);
        assertEquals(0, again.exit(), again.output());
        assertEquals(4, puts.get(), "a second run only reads");
    }

    @Test
    void theTokenIsTakenFromTheFirstEntryOfEitherFormat() throws Exception {
        tokens = "seeder:read+write:first-token,other:read:second-token";
        Run named = seed(2);
        assertEquals(0, named.exit(), named.output());
        assertEquals(2, puts.get());
        tokens = "first-token";
        Run bare = seed(3);
        assertEquals(0, bare.exit(), bare.output());
        assertEquals(3, puts.get());
    }

    @Test
    void failsOnAnAnswerThatIsNeitherSuccessNorOverload() throws Exception {
        answerToEveryPut = 400;
        Run run = seed(3);
        assertNotEquals(0, run.exit(), run.output());
        assertTrue(run.output().contains("PUT load-1 -> 400"), run.output());
    }

    record Run(int exit, String output) {
    }

    private Run seed(int devices) throws Exception {
        JsonNode seed = null;
        for (JsonNode container : Repo.yaml("k8s/jobs/loadtest-job.yaml").path("spec").path("template").path("spec")
                .path("initContainers")) {
            if (container.path("name").asText().equals("seed-devices")) {
                seed = container;
            }
        }
        assertTrue(seed != null, "no seed-devices init container");
        assertEquals("[\"/bin/sh\",\"-c\"]", seed.path("command").toString());
        Map<String, String> env = new java.util.HashMap<>();
        seed.path("env").forEach(e -> env.put(e.path("name").asText(), e.path("value").asText()));
        // A stand-in for `sleep 1` between retries, so the test does not wait.
        Path bin = Files.createDirectories(dir.resolve("bin"));
        Files.writeString(bin.resolve("sleep"), "#!/bin/sh\nexit 0\n");
        Files.setPosixFilePermissions(bin.resolve("sleep"), PosixFilePermissions.fromString("rwxr-xr-x"));

        ProcessBuilder builder = new ProcessBuilder("/bin/sh", "-c", seed.path("args").get(0).asText())
                .redirectErrorStream(true);
        Map<String, String> environment = builder.environment();
        environment.put("PATH", bin + ":" + environment.get("PATH"));
        environment.put("DEVICES", String.valueOf(devices));
        environment.put("DEVICE_PREFIX", env.get("DEVICE_PREFIX"));
        environment.put("SHARED_PASSWORD", env.get("SHARED_PASSWORD"));
        environment.put("REGISTRATION_URL", "http://127.0.0.1:" + server.getAddress().getPort() + "/v1/devices");
        environment.put("REGISTRATION_TOKENS", tokens);
        Process process = builder.start();
        String output = new String(process.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(process.waitFor(60, TimeUnit.SECONDS), output);
        return new Run(process.exitValue(), output);
    }
}
