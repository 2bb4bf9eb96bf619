package io.deviceidentity.registration.api;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.uniquePrefix;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;

import jakarta.inject.Inject;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;

import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.credentials.PasswordPolicy;
import io.deviceidentity.registration.RegistrationConfig;
import io.deviceidentity.registration.imports.ImportResource;
import io.deviceidentity.registration.passwords.BcryptHashFormat;
import io.deviceidentity.registration.reports.WeakHashesResource;
import io.deviceidentity.registration.support.Imports;
import io.deviceidentity.testsupport.OpenApiDocument;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.response.Response;

/**
 * The served OpenAPI document says what the service enforces: each constraint it documents (pattern, lengths,
 * bounds, enumerations, required fields) is read from the document and probed against the running service, a value
 * just inside accepted and one just outside refused with 400, and compared with the validators' constants. A
 * validator that changes without the document, or the other way round, fails here.
 */
@QuarkusTest
class OpenApiConstraintsTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static final String DEVICE = "/v1/devices/{clientId}";
    private static final String REPORT = "/v1/device-reports/weak-hashes";
    /** A storable bcrypt hash after its prefix and cost: salt and hash with their unused bits zero. */
    /** The extension that carries a byte limit (JSON Schema's maxLength counts characters). */
    private static final String MAX_UTF8_BYTES = "x-max-utf8-bytes";
    private static final String BCRYPT_BODY = "C".repeat(21) + "." + "C".repeat(30) + ".";
    private static JsonNode document;

    @Inject
    RegistrationConfig config;

    @BeforeEach
    void fetch() throws IOException {
        document = JSON.readTree(OpenApiDocument.served());
    }

    @Test
    void theClientIdPatternAndLengthsAreTheOnesEveryOperationEnforces() {
        JsonNode schema = parameter(DEVICE, "get", "clientId").path("schema");
        for (String method : List.of("put", "delete")) {
            assertEquals(schema, parameter(DEVICE, method, "clientId").path("schema"), method);
        }
        assertEquals(schema, property("ImportLine", "client_id"));
        assertEquals(schema.path("pattern"), property("WeakHash", "client_id").path("pattern"));
        assertEquals(schema.path("pattern"), property("DeviceView", "clientid").path("pattern"));
        assertEquals("^" + ClientIdPolicy.PATTERN + "$", schema.path("pattern").asText(), schema.toString());
        int max = schema.path("maxLength").asInt();
        assertEquals(ClientIdPolicy.MAX_LENGTH, max, schema.toString());
        assertEquals(1, schema.path("minLength").asInt(), schema.toString());

        Pattern documented = Pattern.compile(schema.path("pattern").asText());
        String prefix = uniquePrefix("oas-id");
        List<String> probes = new ArrayList<>(List.of(prefix + "a", "A9.b_c:d@e-f", "-a", ".a", "_a", ":a", "@a",
                "a b", "a+b", "a$b", "a*b", "a~b", "a,b", "a!b", "a'b", "a\u00e9", "a\u0001b"));
        probes.add(prefix + "x".repeat(max - prefix.length()));
        probes.add(prefix + "x".repeat(max + 1 - prefix.length()));
        for (String id : probes) {
            boolean valid = documented.matcher(id).find();
            Response answer = api().get(DEVICE, id);
            if (valid) {
                assertTrue(answer.statusCode() == 404 || answer.statusCode() == 200, id + " " + answer.asString());
            } else {
                assertRefused(answer, "invalid_client_id", id);
            }
        }
        Imports.Answer imported = Imports.post(Imports.line(prefix + "x".repeat(max - prefix.length()), bcrypt("04"))
                + Imports.line(prefix + "x".repeat(max + 1 - prefix.length()), bcrypt("04")));
        assertEquals(1, imported.summary().path("imported").asInt(), imported.lines().toString());
        assertEquals(Map.of(2, "invalid_client_id"), imported.rejectedReasons());
    }

    @Test
    void thePasswordLengthsAreTheConfiguredMinimumAndBcryptsByteLimit() {
        JsonNode password = property("Registration", "password");
        int min = password.path("minLength").asInt();
        int max = password.path("maxLength").asInt();
        int maxBytes = password.path(MAX_UTF8_BYTES).asInt();
        assertEquals(config.minPasswordLength(), min, password.toString());
        assertEquals(PasswordPolicy.MAX_BYTES, maxBytes, password.toString());
        assertEquals(maxBytes, max, "every character is at least one byte: " + password);
        String prefix = uniquePrefix("oas-pw");
        assertEquals(201, putPassword(prefix + "min", "p".repeat(min)).statusCode());
        assertRefused(putPassword(prefix + "short", "p".repeat(min - 1)), "invalid_password", "min - 1");
        assertEquals(201, putPassword(prefix + "max", "p".repeat(max)).statusCode());
        assertRefused(putPassword(prefix + "long", "p".repeat(max + 1)), "invalid_password", "max + 1");
        // Two bytes a character: within maxLength, and refused once over the byte limit.
        assertEquals(201, putPassword(prefix + "bytes", "\u00e9".repeat(maxBytes / 2)).statusCode());
        assertRefused(putPassword(prefix + "over", "\u00e9".repeat(maxBytes / 2 + 1)), "invalid_password",
                "over the byte limit");
    }

    @Test
    void theBcryptHashPatternAcceptsExactlyTheHashesTheServiceStores() {
        JsonNode hash = property("Registration", "password_hash");
        assertEquals("^" + BcryptHashFormat.PATTERN + "$", hash.path("pattern").asText(), hash.toString());
        assertEquals(BcryptHashFormat.LENGTH, hash.path("maxLength").asInt());
        assertEquals(BcryptHashFormat.LENGTH, hash.path("minLength").asInt());
        Pattern documented = Pattern.compile(hash.path("pattern").asText());
        String prefix = uniquePrefix("oas-hash");
        List<String> probes = new ArrayList<>();
        for (int cost = BcryptHashFormat.MIN_COST - 1; cost <= BcryptHashFormat.MAX_COST + 1; cost++) {
            probes.add(bcrypt(String.format("%02d", cost)));
        }
        probes.addAll(List.of("$2a$05$" + BCRYPT_BODY, "$2y$05$" + BCRYPT_BODY, "$2x$05$" + BCRYPT_BODY,
                "$2b$05$" + BCRYPT_BODY + "C", "$2b$05$" + BCRYPT_BODY.substring(1), "$2b$05$" + BCRYPT_BODY
                        .replace('.', '_'), "$2b$5$" + BCRYPT_BODY + "C"));
        int accepted = 0;
        for (int i = 0; i < probes.size(); i++) {
            String probe = probes.get(i);
            Response answer = api().body(object().put("password_hash", probe).toString()).put(DEVICE, prefix + i);
            if (documented.matcher(probe).find()) {
                assertEquals(201, answer.statusCode(), probe + " " + answer.asString());
                accepted++;
            } else {
                assertRefused(answer, "invalid_password_hash", probe);
            }
        }
        assertEquals(BcryptHashFormat.MAX_COST - BcryptHashFormat.MIN_COST + 1 + 2, accepted);
    }

    @Test
    void theRequiredAndExclusiveFieldsAreTheOnesTheServiceRequires() throws IOException {
        JsonNode registration = schema("Registration");
        assertEquals("[{\"required\":[\"password\"]},{\"required\":[\"password_hash\"]}]",
                registration.path("oneOf").toString(), "exactly one of them");
        assertFalse(registration.path("additionalProperties").asBoolean(true));
        String id = uniquePrefix("oas-required") + "d";
        assertRefused(api().body("{}").put(DEVICE, id), "missing_field", "neither");
        assertRefused(api().body(object().put("password", "p".repeat(40)).put("password_hash", bcrypt("04"))
                .toString()).put(DEVICE, id), "conflicting_fields", "both");
        assertRefused(api().body(object().put("password_hash", bcrypt("04")).put("colour", "red").toString())
                .put(DEVICE, id), "unknown_field", "a field the schema does not have");

        JsonNode rule = schema("AclRule");
        assertEquals(Set.of("permission", "action", "topic"), strings(rule.path("required")));
        assertFalse(rule.path("additionalProperties").asBoolean(true));
        ObjectNode complete = object().put("permission", "allow").put("action", "publish")
                .put("topic", "devices/" + id + "/x");
        assertEquals(201, putRule(id, complete).statusCode());
        for (String field : strings(rule.path("required"))) {
            ObjectNode without = complete.deepCopy();
            without.remove(field);
            assertRefused(putRule(id, without), "invalid_acl", "without " + field);
        }
        for (String field : List.of("permission", "action")) {
            for (JsonNode value : rule.path("properties").path(field).path("enum")) {
                assertEquals(200, putRule(id, complete.deepCopy().put(field, value.asText())).statusCode(),
                        field + "=" + value);
            }
            assertRefused(putRule(id, complete.deepCopy().put(field, "Allow")), "invalid_acl", field);
        }
        assertRefused(putRule(id, complete.deepCopy().put("colour", "red")), "invalid_acl", "unknown rule field");

        JsonNode line = schema("ImportLine");
        assertEquals(Set.of("client_id", "password_hash"), strings(line.path("required")));
        String prefix = uniquePrefix("oas-line");
        ObjectNode full = object().put("client_id", prefix + "a").put("password_hash", bcrypt("04"));
        StringBuilder body = new StringBuilder(full + "\n");
        for (String field : strings(line.path("required"))) {
            ObjectNode without = full.deepCopy().put("client_id", prefix + field);
            without.remove(field);
            body.append(without).append('\n');
        }
        Imports.Answer imported = Imports.post(body.toString());
        assertEquals(1, imported.summary().path("imported").asInt(), imported.lines().toString());
        assertEquals(Map.of(2, "missing_field", 3, "missing_field"), imported.rejectedReasons());

        JsonNode error = JSON.readTree(api().body("{}").put(DEVICE, id).asString());
        assertEquals(fieldNames(error), strings(schema("ErrorBody").path("required")));
    }

    @Test
    void everyFieldOfARealAnswerIsDocumentedAsAlwaysPresent() throws IOException {
        String id = uniquePrefix("oas-view") + "d";
        api().body(object().put("password_hash", bcrypt("04")).toString()).put(DEVICE, id).then().statusCode(201);
        JsonNode view = JSON.readTree(api().get(DEVICE, id).then().statusCode(200).extract().asString());
        assertEquals(fieldNames(view), strings(schema("DeviceView").path("required")));
        assertEquals(fieldNames(view), fieldNames(schema("DeviceView").path("properties")));
        assertTrue(strings(property("DeviceView", "username").path("type")).contains("null"), "no username: null");
        assertEquals(Set.of(view.path("status").asText(), "revoked"),
                strings(property("DeviceView", "status").path("enum")));
        JsonNode page = JSON.readTree(api().queryParam("limit", 1).get(REPORT).then().statusCode(200).extract()
                .asString());
        assertEquals(fieldNames(page), strings(schema("WeakHashPage").path("required")));
        assertEquals(Set.of("client_id", "cost"), strings(schema("WeakHash").path("required")));
    }

    @Test
    void limitIsAnIntegerWithTheBoundsAndDefaultTheReportEnforces() {
        JsonNode limit = parameter(REPORT, "get", "limit").path("schema");
        assertEquals(Set.of("integer"), strings(limit.path("type")), limit.toString());
        int min = limit.path("minimum").asInt();
        int max = limit.path("maximum").asInt();
        assertEquals(WeakHashesResource.MIN_LIMIT, min);
        assertEquals(WeakHashesResource.MAX_LIMIT, max);
        assertEquals(WeakHashesResource.DEFAULT_LIMIT, limit.path("default").asInt(), limit.toString());
        for (Object inside : List.of(min, max)) {
            api().queryParam("limit", inside).get(REPORT).then().statusCode(200);
        }
        for (Object outside : List.of(min - 1, max + 1, "1.5", "ten")) {
            assertRefused(api().queryParam("limit", outside).get(REPORT), "invalid_field", "limit=" + outside);
        }
    }

    @Test
    void theImportsQueryParametersAreEnumsOfExactlyTheValuesTheImportAccepts() {
        for (String name : List.of("existing", ImportResource.ALLOW_WEAK_SCHEMES)) {
            JsonNode schema = parameter("/v1/device-imports", "post", name).path("schema");
            Set<String> values = strings(schema.path("enum"));
            assertTrue(values.size() >= 2 && values.contains(schema.path("default").asText()), schema.toString());
            for (String value : values) {
                Imports.Answer answer = Imports.post("", "?" + name + "=" + value);
                assertEquals(200, answer.status(), name + "=" + value + " " + answer.lines());
            }
            for (String value : values) {
                for (String near : List.of(value.toUpperCase(), value + "x", "1")) {
                    Imports.Answer answer = Imports.post("", "?" + name + "=" + near);
                    assertEquals(400, answer.status(), name + "=" + near + " " + answer.lines());
                    assertEquals("invalid_field", answer.lines().get(0).path("reason").asText());
                }
            }
        }
    }

    @Test
    void getAndDeleteDocumentTheOnlyBadInputTheyHaveTheClientId() {
        String put = response(DEVICE, "put", "400");
        for (String method : List.of("get", "delete")) {
            String description = response(DEVICE, method, "400");
            assertTrue(description.contains("invalid_client_id"), description);
            for (String bodyReason : List.of("invalid_password", "missing_field", "malformed_json", "unknown_field")) {
                assertTrue(put.contains(bodyReason), put);
                assertFalse(description.contains(bodyReason), method + ": " + description);
            }
        }
        assertRefused(api().delete(DEVICE, "a b"), "invalid_client_id", "delete");
    }

    @Test
    void theDocumentSaysImportsTakeOtherSchemesThanBcryptAndTheyDo() {
        String description = document.path("info").path("description").asText();
        assertTrue(description.contains("password_scheme"), description);
        assertFalse(property("ImportLine", "password_scheme").isMissingNode());
        assertTrue(property("ImportLine", "password_hash").path("pattern").isMissingNode(),
                "an import line's hash is not only bcrypt");
        String line = object().put("client_id", uniquePrefix("oas-scheme") + "d").put("password_scheme", "emqx-sha256")
                .put("password_hash", "ab".repeat(32)).put("salt", "pepper") + "\n";
        Imports.Answer answer = Imports.post(line);
        assertEquals(1, answer.summary().path("imported").asInt(), answer.lines().toString());
    }

    private static Response putPassword(String id, String password) {
        return api().body(object().put("password", password).toString()).put(DEVICE, id);
    }

    private static Response putRule(String id, ObjectNode rule) {
        ObjectNode body = object().put("password_hash", bcrypt("04"));
        body.putArray("acl").add(rule);
        return api().body(body.toString()).put(DEVICE, id);
    }

    private static String bcrypt(String cost) {
        return "$2b$" + cost + "$" + BCRYPT_BODY;
    }

    private static void assertRefused(Response answer, String reason, String what) {
        assertEquals(400, answer.statusCode(), what + " " + answer.asString());
        assertEquals(reason, answer.jsonPath().getString("reason"), what + " " + answer.asString());
    }

    private static ObjectNode object() {
        return JSON.createObjectNode();
    }

    private static JsonNode parameter(String path, String method, String name) {
        for (JsonNode parameter : document.path("paths").path(path).path(method).path("parameters")) {
            if (parameter.path("name").asText().equals(name)) {
                return parameter;
            }
        }
        throw new AssertionError(method + " " + path + " documents no parameter " + name);
    }

    private static String response(String path, String method, String status) {
        return document.path("paths").path(path).path(method).path("responses").path(status).path("description")
                .asText();
    }

    private static JsonNode schema(String name) {
        return document.path("components").path("schemas").path(name);
    }

    private static JsonNode property(String schema, String field) {
        return schema(schema).path("properties").path(field);
    }

    private static Set<String> strings(JsonNode node) {
        Set<String> values = new TreeSet<>();
        if (node.isArray()) {
            node.forEach(value -> values.add(value.asText()));
        } else if (!node.isMissingNode()) {
            values.add(node.asText());
        }
        return values;
    }

    private static Set<String> fieldNames(JsonNode node) {
        Set<String> names = new TreeSet<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }
}
