package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deviceidentity.registration.support.Database;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/** identity.registration.min-password-length: a deployment that enforces machine-generated passwords. */
@QuarkusTest
@TestProfile(MinimumPasswordLengthTest.TwentyCharacters.class)
class MinimumPasswordLengthTest {

    public static class TwentyCharacters implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("identity.registration.min-password-length", "20");
        }
    }

    @Test
    void aShorterPasswordIs400AndWritesNothingWhileALongEnoughOneIsStored() {
        String id = uniqueId("minlen");
        api().body(passwordBody("nineteen-characters")).put("/v1/devices/{id}", id)
                .then().statusCode(400).body("reason", equalTo("invalid_password"))
                .body("message", containsString("at least 20 characters"));
        assertEquals(0, Database.countWithPrefix(id));

        // Characters, not bytes: 20 two-byte characters are 20.
        api().body(passwordBody("é".repeat(20))).put("/v1/devices/{id}", id).then().statusCode(201);
    }
}
