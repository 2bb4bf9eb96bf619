package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static io.restassured.RestAssured.given;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deviceidentity.registration.support.Database;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/** identity.registration.min-password-length set explicitly (the chart's registrationService.minPasswordLength). */
@QuarkusTest
@TestProfile(MinimumPasswordLengthOverrideTest.ThirtyTwoCharacters.class)
class MinimumPasswordLengthOverrideTest {

    public static class ThirtyTwoCharacters implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("identity.registration.min-password-length", "32");
        }
    }

    @Test
    void aLongerMinimumRefusesWhatTheDefaultAcceptsAndStoresALongEnoughPassword() {
        String id = uniqueId("minlen32");
        api().body(passwordBody("b".repeat(31))).put("/v1/devices/{id}", id)
                .then().statusCode(400).body("reason", equalTo("invalid_password"))
                .body("message", containsString("at least 32 characters"));
        assertEquals(0, Database.countWithPrefix(id));
        api().body(passwordBody("b".repeat(32))).put("/v1/devices/{id}", id).then().statusCode(201);
    }

    @Test
    void theOpenApiDocumentPublishesTheConfiguredMinimum() {
        given().accept("application/json").get("/q/openapi?format=json").then().statusCode(200)
                .body("components.schemas.Registration.properties.password.minLength", equalTo(32))
                .body("components.schemas.Registration.properties.password.description",
                        containsString("at least 32 characters"));
    }
}
