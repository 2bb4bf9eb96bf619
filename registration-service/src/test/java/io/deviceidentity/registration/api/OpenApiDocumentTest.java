package io.deviceidentity.registration.api;

import static io.deviceidentity.registration.support.Devices.api;
import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.annotation.Annotation;
import java.lang.reflect.Method;
import java.lang.reflect.RecordComponent;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Iterator;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.TreeSet;
import java.util.jar.JarFile;
import java.util.stream.Collectors;
import java.util.stream.Stream;

import jakarta.ws.rs.HttpMethod;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.http.ErrorBody;
import io.deviceidentity.registration.devices.DeviceView;
import io.deviceidentity.registration.tokens.RequiresScope;
import io.quarkus.test.junit.QuarkusTest;

/**
 * The served OpenAPI document covers the whole API: every JAX-RS operation, found by reflection over the compiled
 * resource classes (not a hand list), with every status {@link ApiAnswers} lists for it, the real error body, and
 * the bearer scheme.
 */
@QuarkusTest
class OpenApiDocumentTest {

    private static final ObjectMapper JSON = new ObjectMapper();
    private static JsonNode document;

    /** One JAX-RS operation: {@code PUT /v1/devices/{clientId}}. */
    record Endpoint(String method, String path) {
        String key() {
            return method + " " + path;
        }
    }

    /** Fetched once the application runs (a static @BeforeAll would run before it has a port). */
    @BeforeEach
    void fetch() throws IOException {
        if (document != null) {
            return;
        }
        String served = given().accept("application/json").get("/q/openapi?format=json").then().statusCode(200)
                .extract().asString();
        document = JSON.readTree(served);
    }

    @Test
    void everyEndpointOfTheApiIsInTheDocumentWithEveryStatusItCanAnswerAndTheBearerScheme() throws Exception {
        List<Endpoint> endpoints = endpoints();
        assertTrue(endpoints.contains(new Endpoint("POST", "/v1/device-imports")), endpoints.toString());
        assertTrue(endpoints.size() >= 4, endpoints.toString());
        for (Endpoint endpoint : endpoints) {
            List<ApiAnswers.Answer> answers = ApiAnswers.OPERATIONS.get(endpoint.key());
            assertNotNull(answers, endpoint.key() + " has no entry in ApiAnswers");
            JsonNode operation = document.path("paths").path(endpoint.path())
                    .path(endpoint.method().toLowerCase(Locale.ROOT));
            assertFalse(operation.isMissingNode(), endpoint.key() + " is not in the document");
            Set<String> documented = new TreeSet<>();
            operation.path("responses").fieldNames().forEachRemaining(documented::add);
            Set<String> listed = answers.stream().map(answer -> Integer.toString(answer.status()))
                    .collect(Collectors.toCollection(TreeSet::new));
            assertEquals(listed, documented, endpoint.key());
            for (ApiAnswers.Answer answer : answers) {
                JsonNode response = operation.path("responses").path(Integer.toString(answer.status()));
                if (answer.status() >= 400) {
                    assertEquals("#/components/schemas/ErrorBody", response.path("content").path("application/json")
                            .path("schema").path("$ref").asText(), endpoint.key() + " " + answer.status());
                }
            }
            assertTrue(operation.path("security").toString().contains("\"" + ApiDocumentation.BEARER + "\""),
                    endpoint.key() + " lacks the bearer scheme: " + operation.path("security"));
        }
        JsonNode scheme = document.path("components").path("securitySchemes").path(ApiDocumentation.BEARER);
        assertEquals("http", scheme.path("type").asText());
        assertEquals("bearer", scheme.path("scheme").asText());
    }

    @Test
    void everyResourceMethodDeclaresTheScopeItNeedsAndIsDocumentedWith403() throws Exception {
        for (String name : classNames()) {
            Class<?> type = Class.forName(name, false, OpenApiDocumentTest.class.getClassLoader());
            if (type.getAnnotation(jakarta.ws.rs.Path.class) == null) {
                continue;
            }
            for (Method method : type.getDeclaredMethods()) {
                boolean resourceMethod = Arrays.stream(method.getAnnotations())
                        .anyMatch(a -> a.annotationType().getAnnotation(HttpMethod.class) != null);
                // Without it the filter refuses every token (fail closed); this keeps that from shipping unnoticed.
                assertTrue(!resourceMethod || method.getAnnotation(RequiresScope.class) != null,
                        type.getSimpleName() + "." + method.getName() + " declares no @RequiresScope");
            }
        }
        for (Endpoint endpoint : endpoints()) {
            assertTrue(ApiAnswers.OPERATIONS.get(endpoint.key()).stream().anyMatch(answer -> answer.status() == 403),
                    endpoint.key());
        }
    }

    @Test
    void theErrorSchemaIsTheShapeOfARealErrorAnswer() throws IOException {
        JsonNode real = JSON.readTree(api().body("{}").put("/v1/devices/{id}", "openapi-probe").then()
                .statusCode(400).extract().asString());
        assertEquals(fieldNames(real), propertyNames("ErrorBody"));
        assertEquals(Arrays.stream(ErrorBody.class.getRecordComponents()).map(RecordComponent::getName)
                .collect(Collectors.toCollection(TreeSet::new)), propertyNames("ErrorBody"));
        assertTrue(propertyNames("DeviceView").containsAll(Set.of("clientid", "acl_source", "created_at")),
                propertyNames("DeviceView").toString());
        assertEquals(DeviceView.class.getRecordComponents().length, propertyNames("DeviceView").size());
    }

    @Test
    void theRequestBodiesAreDocumented() {
        JsonNode put = document.path("paths").path("/v1/devices/{clientId}").path("put").path("requestBody");
        assertEquals("#/components/schemas/Registration",
                put.path("content").path("application/json").path("schema").path("$ref").asText(), put.toString());
        assertTrue(propertyNames("Registration").containsAll(Set.of("password", "password_hash", "acl")));
        JsonNode post = document.path("paths").path("/v1/device-imports").path("post").path("requestBody");
        assertEquals("#/components/schemas/ImportLine",
                post.path("content").path("application/x-ndjson").path("schema").path("$ref").asText());
    }

    @Test
    void swaggerUiIsNotServedOutsideDevMode() {
        given().get("/q/swagger-ui").then().statusCode(404);
    }

    private static Set<String> propertyNames(String schema) {
        return fieldNames(document.path("components").path("schemas").path(schema).path("properties"));
    }

    private static Set<String> fieldNames(JsonNode node) {
        Set<String> names = new TreeSet<>();
        for (Iterator<String> it = node.fieldNames(); it.hasNext(); ) {
            names.add(it.next());
        }
        return names;
    }

    /** Every JAX-RS resource method of the service, from the compiled classes of its packages. */
    static List<Endpoint> endpoints() throws IOException, URISyntaxException, ClassNotFoundException {
        List<Endpoint> endpoints = new ArrayList<>();
        for (String name : classNames()) {
            Class<?> type = Class.forName(name, false, OpenApiDocumentTest.class.getClassLoader());
            jakarta.ws.rs.Path base = type.getAnnotation(jakarta.ws.rs.Path.class);
            if (base == null) {
                continue;
            }
            for (Method method : type.getDeclaredMethods()) {
                for (Annotation annotation : method.getAnnotations()) {
                    HttpMethod http = annotation.annotationType().getAnnotation(HttpMethod.class);
                    if (http != null) {
                        jakarta.ws.rs.Path sub = method.getAnnotation(jakarta.ws.rs.Path.class);
                        endpoints.add(new Endpoint(http.value(), join(base.value(), sub == null ? "" : sub.value())));
                    }
                }
            }
        }
        return endpoints;
    }

    /** The service's classes: target/classes in @QuarkusTest, the application JAR in @QuarkusIntegrationTest. */
    private static List<String> classNames() throws IOException, URISyntaxException {
        Path location = Path.of(ApiAnswers.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> entries = new ArrayList<>();
        if (Files.isDirectory(location)) {
            try (Stream<Path> walk = Files.walk(location)) {
                walk.forEach(file -> entries.add(location.relativize(file).toString().replace('\\', '/')));
            }
        } else {
            try (JarFile jar = new JarFile(location.toFile())) {
                jar.stream().forEach(entry -> entries.add(entry.getName()));
            }
        }
        return entries.stream().filter(entry -> entry.startsWith("io/deviceidentity/registration/")
                && entry.endsWith(".class")).map(entry -> entry.replace('/', '.').replaceAll("\\.class$", ""))
                .toList();
    }

    private static String join(String base, String sub) {
        String path = (base + "/" + sub).replaceAll("/+", "/");
        return path.length() > 1 && path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
    }
}
