package io.deviceidentity.auth.api;

import static io.restassured.RestAssured.given;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;

import io.quarkus.test.junit.QuarkusTest;

/** auth-service describes its endpoints at /q/openapi, as registration-service does. */
@QuarkusTest
class OpenApiDocumentTest {

    @Test
    void theDocumentListsTheEmqxEndpointsAndNothingOfQuarkus() throws Exception {
        String body = given().accept("application/json").get("/q/openapi").then().statusCode(200).extract().asString();
        JsonNode paths = new ObjectMapper().readTree(body).path("paths");
        assertTrue(paths.path("/mqtt/authn").has("post"), body);
        assertTrue(paths.path("/mqtt/authz").has("post"), body);
        assertEquals(2, paths.size(), "only the service's own paths: " + paths.fieldNames());
    }
}
