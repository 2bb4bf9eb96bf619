package io.deviceidentity.registration.devices;

import static io.deviceidentity.registration.support.Devices.api;
import static io.deviceidentity.registration.support.Devices.passwordBody;
import static io.deviceidentity.registration.support.Devices.uniqueId;
import static org.hamcrest.Matchers.containsString;
import static org.hamcrest.Matchers.equalTo;
import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import io.deviceidentity.registration.RegistrationConfig;
import io.deviceidentity.registration.support.Database;
import io.deviceidentity.testsupport.ForeignBcryptHashes;
import io.quarkus.test.junit.QuarkusTest;

/**
 * identity.registration.min-password-length by default: 22 characters, what a machine-generated secret has (the fast
 * path's threat model, docs/security.md). {@link MinimumPasswordLengthOverrideTest} sets another value.
 */
@QuarkusTest
class MinimumPasswordLengthTest {

    @Test
    void byDefaultAPasswordOf21CharactersIs400AndWritesNothingWhile22AreStored() {
        assertEquals(22, RegistrationConfig.DEFAULT_MIN_PASSWORD_LENGTH);
        String id = uniqueId("minlen");
        api().body(passwordBody("a".repeat(21))).put("/v1/devices/{id}", id)
                .then().statusCode(400).body("reason", equalTo("invalid_password"))
                .body("message", containsString("at least 22 characters"));
        assertEquals(0, Database.countWithPrefix(id));

        // Characters, not bytes: 22 two-byte characters are 22.
        api().body(passwordBody("é".repeat(22))).put("/v1/devices/{id}", id).then().statusCode(201);
    }

    @Test
    void aReadyMadeHashIsNotHeldToTheLengthItCannotShow() {
        String id = uniqueId("minlen-hash");
        api().body("{\"password_hash\":\"" + ForeignBcryptHashes.LIBXCRYPT_2B.hash() + "\"}")
                .put("/v1/devices/{id}", id).then().statusCode(201);
    }
}
