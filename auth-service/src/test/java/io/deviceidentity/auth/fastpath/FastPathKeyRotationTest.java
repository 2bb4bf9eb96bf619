package io.deviceidentity.auth.fastpath;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.StoredRows.awaitVerifier;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;
import io.restassured.response.Response;

/**
 * A rotation in progress (docs/security.md, rotation step 2): a new key "test-2" is current and the old "test-1" still
 * known. A verifier under the old key is still honoured, without bcrypt, and re-written under the new one, so that
 * the old key can be removed once its verifiers are gone.
 */
@QuarkusTest
@TestProfile(FastPathKeyRotationTest.RotatingKeys.class)
class FastPathKeyRotationTest {

    static final String NEW_KEY = "test-2:bmV3LXRlc3Qta2V5LWZvci1yb3RhdGlvbi0wMDAwMDAwMDAwMDA=";

    public static class RotatingKeys implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            return Map.of("identity.auth.fast-path.keys", NEW_KEY + "," + TestKeys.TEST_PROFILE_KEYS,
                    "identity.auth.fast-path.current-key", "test-2");
        }
    }

    @Inject
    MeterRegistry registry;

    @Test
    void aVerifierUnderTheOldKeyIsHonouredWithoutBcryptAndRewrittenUnderTheNewOne() throws Exception {
        String id = uniqueId("rotate");
        String password = device(id).store();
        TestKeys.plant(id, password, TestKeys.CURRENT, "test-1");
        double hashes = hashes();

        Response answer = authn(id, password);
        assertEquals("allow", answer.jsonPath().getString("result"), answer.asString());
        assertEquals(hashes, hashes(), "the old key's verifier needed no bcrypt");
        awaitVerifier(id, "test-2");
        assertEquals("allow", authn(id, password).jsonPath().getString("result"));
        assertEquals(hashes, hashes());
    }

    private double hashes() {
        return registry.get(MetricNames.BCRYPT_DURATION).timer().count();
    }
}
