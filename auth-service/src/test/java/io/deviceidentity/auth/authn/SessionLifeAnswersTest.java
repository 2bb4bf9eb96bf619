package io.deviceidentity.auth.authn;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.hamcrest.Matchers.equalTo;
import static org.hamcrest.Matchers.nullValue;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;

import org.junit.jupiter.api.Test;

import io.quarkus.test.junit.QuarkusTest;
import io.restassured.path.json.JsonPath;

/**
 * Every allow carries {@code expire_at} as EMQX reads it (an integer of Unix SECONDS, in the future:
 * emqx_authn_http.erl {@code expire_at/1}), within the default 24 h maximum session life; a denial carries none.
 */
@QuarkusTest
class SessionLifeAnswersTest {

    @Test
    void anAllowEndsTheSessionWithinTheMaximumLifeInUnixSeconds() {
        String id = uniqueId("expire-at");
        String password = device(id).store();
        long before = Instant.now().getEpochSecond();
        JsonPath answer = authn(id, password).then().statusCode(200).body("result", equalTo("allow"))
                .extract().jsonPath();
        long after = Instant.now().getEpochSecond();
        Object expireAt = answer.get("expire_at");
        assertTrue(expireAt instanceof Integer || expireAt instanceof Long, "an integer, got " + expireAt);
        long seconds = ((Number) expireAt).longValue();
        assertTrue(seconds >= before + 86_400 - 8_640 - 1 && seconds <= after + 86_400,
                "expire_at " + seconds + " is not within 21.6..24 h of " + before);
    }

    @Test
    void aSuperuserSessionIsBoundedToo() {
        String id = uniqueId("expire-at-root");
        String password = device(id).superuser().store();
        long now = Instant.now().getEpochSecond();
        long seconds = ((Number) authn(id, password).then().statusCode(200).extract().jsonPath().get("expire_at"))
                .longValue();
        assertTrue(seconds > now + 3600, "expire_at " + seconds);
    }

    @Test
    void aDenialCarriesNoExpiry() {
        String id = uniqueId("expire-at-deny");
        device(id).store();
        authn(id, "not-the-password").then().statusCode(200).body("result", equalTo("deny"))
                .body("expire_at", nullValue());
    }
}
