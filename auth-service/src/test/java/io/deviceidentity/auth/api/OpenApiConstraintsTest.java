package io.deviceidentity.auth.api;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.not;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.List;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deviceidentity.auth.authz.AuthzRequest;
import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.credentials.PasswordPolicy;
import io.deviceidentity.testsupport.OpenApiDocument;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * auth-service's served OpenAPI document says what its endpoints enforce: each documented constraint is read from the
 * document and probed against the running service (a value inside it answered, one outside refused with 400 or, for
 * a client id or password no device can have, denied), and compared with the checks' constants.
 */
@QuarkusTest
class OpenApiConstraintsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static JsonNode document;

    @BeforeEach
    void fetch() throws IOException {
        document = JSON.readTree(OpenApiDocument.served());
    }

    @Test
    void authzDocumentsTheRequiredFieldsAndTheValuesItAccepts() {
        JsonNode post = document.path("paths").path("/mqtt/authz").path("post");
        assertEquals("#/components/schemas/AuthzRequestBody", post.path("requestBody").path("content")
                .path("application/json").path("schema").path("$ref").asText(), post.toString());
        assertTrue(post.path("responses").has("400"), post.toString());
        JsonNode schema = schema("AuthzRequestBody");
        Set<String> required = strings(schema.path("required"));
        assertEquals(new TreeSet<>(AuthzRequest.REQUIRED), required);

        ObjectNode complete = JSON.createObjectNode().put("clientid", uniqueId("oas-authz")).put("username", "")
                .put("action", "publish").put("topic", "t").put("qos", "0").put("retain", "false");
        authz(complete).then().statusCode(200);
        for (String field : required) {
            ObjectNode without = complete.deepCopy();
            without.remove(field);
            assertRefused(authz(without), "missing_field", "without " + field);
        }
        List<String> probes = List.of("publish", "subscribe", "all", "PUBLISH", "0", "1", "2", "3", "01", "true",
                "false", "TRUE", "yes", "");
        for (String field : List.of("action", "qos", "retain")) {
            Set<String> values = strings(schema.path("properties").path(field).path("enum"));
            assertTrue(values.size() >= 2, field + ": " + schema);
            for (String probe : probes) {
                Response answer = authz(complete.deepCopy().put(field, probe));
                if (values.contains(probe)) {
                    assertEquals(200, answer.statusCode(), field + "=" + probe + " " + answer.asString());
                } else {
                    assertRefused(answer, "invalid_field", field + "=" + probe);
                }
            }
        }
        assertEquals(1, schema.path("properties").path("topic").path("minLength").asInt(), schema.toString());
        assertRefused(authz(complete.deepCopy().put("topic", "")), "invalid_field", "empty topic");
        assertEquals(Set.of("reason", "message"), strings(schema("ErrorAnswer").path("required")));
    }

    @Test
    void authnDescribesTheClientIdsAndPasswordsNoDeviceCanHaveAndDeniesThem() {
        JsonNode properties = schema("AuthnRequestBody").path("properties");
        Matcher pattern = Pattern.compile("\\^(\\S+)\\$").matcher(properties.path("clientid").path("description")
                .asText());
        assertTrue(pattern.find(), properties.toString());
        assertEquals(ClientIdPolicy.PATTERN, pattern.group(1));
        Matcher bytes = Pattern.compile("at most (\\d+) UTF-8 bytes").matcher(properties.path("password")
                .path("description").asText());
        assertTrue(bytes.find(), properties.toString());
        int maxBytes = Integer.parseInt(bytes.group(1));
        assertEquals(PasswordPolicy.MAX_BYTES, maxBytes);

        String id = uniqueId("oas-authn");
        assertTrue(Pattern.matches(pattern.group(1), id), id);
        device(id).password("a".repeat(maxBytes)).store();
        authn(id, "a".repeat(maxBytes)).then().statusCode(200).body("result",
                equalTo("allow"));
        authn(id, "a".repeat(maxBytes + 1)).then().statusCode(200).body("result",
                equalTo("deny"));
        String outside = id + " ";
        assertFalse(Pattern.matches(pattern.group(1), outside));
        authn(outside, "a".repeat(maxBytes)).then().statusCode(200).body("result",
                not("allow"));
    }

    private static Response authz(ObjectNode body) {
        return given().contentType("application/json").body(body.toString()).post("/mqtt/authz");
    }

    private static void assertRefused(Response answer, String reason, String what) {
        assertEquals(400, answer.statusCode(), what + " " + answer.asString());
        assertEquals(reason, answer.jsonPath().getString("reason"), what + " " + answer.asString());
    }

    private static JsonNode schema(String name) {
        return document.path("components").path("schemas").path(name);
    }

    private static Set<String> strings(JsonNode node) {
        Set<String> values = new TreeSet<>();
        node.forEach(value -> values.add(value.asText()));
        return values;
    }
}
