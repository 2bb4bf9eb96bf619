package io.deviceidentity.registration.tokens;

import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.deviceidentity.testsupport.ManagementInterface;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;

import io.deviceidentity.metrics.MetricSelector;
import io.deviceidentity.metrics.PrometheusText;
import io.deviceidentity.registration.support.Database;
import io.deviceidentity.registration.support.Devices;
import io.quarkus.test.junit.QuarkusTest;
import io.restassured.RestAssured;
import io.restassured.http.ContentType;

@QuarkusTest
class BearerTokenTest {

    private static final String PATH = "/v1/devices/{id}";

    @Test
    void requestWithoutAnAuthorizationHeaderIs401JsonAndWritesNothing() {
        String id = uniqueId("no-token");
        RestAssured.given().contentType(ContentType.JSON).body(passwordBody("valid-password-padded-")).put(PATH, id)
                .then().statusCode(401).contentType(ContentType.JSON)
                .header("WWW-Authenticate", "Bearer").body("reason", equalTo("unauthorized"));
        assertTrue(Database.row(id).isEmpty());
    }

    @ParameterizedTest(name = "Authorization: {0}")
    @ValueSource(strings = {
            "Bearer wrong-token",
            "Bearer test-registration-token-012345678", // the accepted token minus its last character
            "Bearer test-registration-token-01234567890", // the accepted token plus one character
            "Bearer ",
            "Basic dGVzdC1yZWdpc3RyYXRpb24tdG9rZW4tMDEyMzQ1Njc4OQ==",
            "test-registration-token-0123456789", // no scheme
    })
    void anythingButAnAcceptedBearerTokenIs401ForEveryMethodAndWritesNothing(String authorization) {
        String id = uniqueId("bad-token");
        RestAssured.given().header("Authorization", authorization).contentType(ContentType.JSON)
                .body(passwordBody("valid-password-padded-")).put(PATH, id)
                .then().statusCode(401).body("reason", equalTo("unauthorized"));
        RestAssured.given().header("Authorization", authorization).get(PATH, id).then().statusCode(401);
        RestAssured.given().header("Authorization", authorization).delete(PATH, id).then().statusCode(401);
        assertTrue(Database.row(id).isEmpty());
    }

    @Test
    void revokingWithoutATokenLeavesTheDeviceActive() {
        String id = uniqueId("keep");
        Devices.api().body(passwordBody("valid-password-padded-")).put(PATH, id).then().statusCode(201);
        RestAssured.given().delete(PATH, id).then().statusCode(401);
        assertTrue(Database.row(id).orElseThrow().isActive());
    }

    @Test
    void everyConfiguredTokenIsAcceptedWhateverTheSchemeCase() {
        String id = uniqueId("second-token");
        RestAssured.given().header("Authorization", "bearer " + Devices.SECOND_TOKEN).contentType(ContentType.JSON)
                .body(passwordBody("valid-password-padded-")).put(PATH, id).then().statusCode(201);
        RestAssured.given().header("Authorization", "Bearer " + Devices.TOKEN).get(PATH, id).then().statusCode(200);
    }

    @Test
    void healthAndMetricsStayOpenForProbesAndScrapers() {
        ManagementInterface.given().get("/q/health/ready").then().statusCode(200);
        ManagementInterface.given().get("/q/metrics").then().statusCode(200);
    }

    @Test
    void registrationOutcomesNameTheirOperation() {
        RestAssured.given().get("/v1/devices/{id}", "no-token-here").then().statusCode(401);
        String metrics = ManagementInterface.metrics();
        MetricSelector unauthorizedGet = MetricSelector.parse(
                "identity_registration_outcomes_total{operation=\"get\",reason=\"unauthorized\"}");
        assertTrue(PrometheusText.samples(metrics).stream().anyMatch(unauthorizedGet::matches), metrics);
    }
}
