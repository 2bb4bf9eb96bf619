package io.deviceidentity.auth.overload;

import static io.deviceidentity.auth.support.Emqx.authnBody;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.auth.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;
import io.restassured.RestAssured;

/**
 * A burst against the packaged artifact (one bcrypt thread, queue of 8, see PackagedAppOnTestStack): the excess is
 * refused with 503 overload and Retry-After, admitted devices are allowed, and nothing else comes back (no 500).
 */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class OverloadAnswersIT {

    private static final ObjectMapper JSON = new ObjectMapper();
    private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

    @Test
    void burstBeyondTheBcryptQueueIsRefusedWithOverloadWhileAdmittedDevicesAreAllowed() {
        String prefix = uniqueId("burst-it");
        for (int i = 0; i < 40; i++) {
            device(prefix + "-" + i).password("burst-password").cost(10).store();
        }
        URI authn = URI.create(RestAssured.baseURI + ":" + RestAssured.port + "/mqtt/authn");

        List<CompletableFuture<String>> pending = new ArrayList<>();
        for (int i = 0; i < 40; i++) {
            HttpRequest request = HttpRequest.newBuilder(authn)
                    .timeout(Duration.ofSeconds(15))
                    .header("content-type", "application/json")
                    .POST(HttpRequest.BodyPublishers.ofString(authnBody(prefix + "-" + i, "", "burst-password")))
                    .build();
            pending.add(http.sendAsync(request, HttpResponse.BodyHandlers.ofString()).thenApply(this::outcome));
        }
        Map<String, Integer> byOutcome = new TreeMap<>();
        pending.stream().map(CompletableFuture::join).forEach(outcome -> byOutcome.merge(outcome, 1, Integer::sum));

        assertTrue(byOutcome.getOrDefault("200 allow", 0) >= 1, byOutcome.toString());
        assertTrue(byOutcome.getOrDefault("503 overload", 0) >= 1, byOutcome.toString());
        assertTrue(Set.of("200 allow", "503 overload", "503 deadline").containsAll(byOutcome.keySet()),
                "unexpected outcome in " + byOutcome);
    }

    private String outcome(HttpResponse<String> response) {
        JsonNode body;
        try {
            body = JSON.readTree(response.body());
        } catch (Exception e) {
            throw new AssertionError("answer " + response.statusCode() + " is not JSON: " + response.body(), e);
        }
        assertEquals("application/json", response.headers().firstValue("content-type").orElse("").split(";")[0]);
        if (response.statusCode() == 503) {
            assertNotNull(response.headers().firstValue("Retry-After").orElse(null), "503 without Retry-After");
        }
        return response.statusCode() + " " + body.path(response.statusCode() == 200 ? "result" : "reason").asText();
    }
}
