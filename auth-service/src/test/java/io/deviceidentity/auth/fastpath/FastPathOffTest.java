package io.deviceidentity.auth.fastpath;

import static io.deviceidentity.auth.support.Emqx.authn;
import static io.deviceidentity.auth.support.StoredRows.verifier;
import static io.deviceidentity.auth.support.TestDevices.device;
import static io.deviceidentity.auth.support.TestDevices.uniqueId;
import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import java.util.Map;

import jakarta.inject.Inject;

import org.junit.jupiter.api.Test;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.test.junit.QuarkusTest;
import io.quarkus.test.junit.QuarkusTestProfile;
import io.quarkus.test.junit.TestProfile;

/** The switch: with the fast path off, every check is a bcrypt and no verifier is read or written. */
@QuarkusTest
@TestProfile(FastPathOffTest.Off.class)
class FastPathOffTest {

    public static class Off implements QuarkusTestProfile {
        @Override
        public Map<String, String> getConfigOverrides() {
            // No keys either: off must not need them.
            return Map.of("identity.auth.fast-path.enabled", "false", "identity.auth.fast-path.keys", "");
        }
    }

    @Inject
    MeterRegistry registry;

    @Test
    void aValidVerifierIsIgnoredAndEveryCheckPaysBcrypt() throws Exception {
        String id = uniqueId("off");
        String password = device(id).store();
        byte[] planted = TestKeys.plant(id, password, TestKeys.CURRENT, "test-1");
        double hashes = registry.get(MetricNames.BCRYPT_DURATION).timer().count();

        for (int i = 0; i < 3; i++) {
            assertEquals("allow", authn(id, password).jsonPath().getString("result"));
        }
        assertEquals(hashes + 3, registry.get(MetricNames.BCRYPT_DURATION).timer().count());
        assertEquals(0.0, sum(MetricNames.FASTPATH_ALLOWS) + sum(MetricNames.FASTPATH_FALLBACKS),
                "verifiers were not even looked at");
        assertEquals(0.0, registry.get(MetricNames.FASTPATH_ENABLED).gauge().value());
        assertArrayEquals(planted, verifier(id).mac(), "nothing was written");
    }

    @Test
    void aNewDeviceGetsNoVerifier() {
        String id = uniqueId("off-new");
        String password = device(id).store();
        assertEquals("allow", authn(id, password).jsonPath().getString("result"));
        assertEquals(0.0, sum(MetricNames.FASTPATH_WRITES) + sum(MetricNames.FASTPATH_WRITES_DROPPED));
        assertNull(verifier(id));
    }

    private double sum(String name) {
        return registry.find(name).counters().stream().mapToDouble(Counter::count).sum();
    }
}
