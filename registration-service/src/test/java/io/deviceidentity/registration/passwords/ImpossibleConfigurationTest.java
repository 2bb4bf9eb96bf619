package io.deviceidentity.registration.passwords;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deviceidentity.overload.DeadlineTimer;
import io.deviceidentity.overload.Lane;
import io.deviceidentity.overload.Lanes;
import io.deviceidentity.overload.OverloadConfig;
import io.deviceidentity.registration.RegistrationConfig;
import io.deviceidentity.registration.support.ProductionConfig;
import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/**
 * A configuration under which registration-service could never serve a registration stops its start with a message
 * naming the setting and its minimum (before, the warm-up's hash was refused for ever and the service never became
 * ready). Read through the real configuration mapping, from the environment variables an operator sets; the beans
 * are the ones created at start (the bcrypt lane and PasswordHasher are both {@code @Startup}).
 */
class ImpossibleConfigurationTest {

    @Test
    void aDeadlineShorterThanOneBcryptCheckIsRefusedWithTheSettingAndItsMinimum() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> start(Map.of("IDENTITY_OVERLOAD_DEADLINE", "1ms")));

        assertMentions(refused.getMessage(), "identity.overload.deadline (IDENTITY_OVERLOAD_DEADLINE) is 1ms",
                "one cost-10 bcrypt check is expected to take 80ms", "Set the deadline above 80ms");
    }

    @Test
    void aDeadlineThatCannotHoldOneHashAtTheRegistrationCostIsRefusedNamingTheCost() {
        IllegalArgumentException refused = assertThrows(IllegalArgumentException.class,
                () -> start(Map.of("IDENTITY_OVERLOAD_DEADLINE", "300ms", "IDENTITY_REGISTRATION_BCRYPT_COST", "12")));

        assertMentions(refused.getMessage(), "is 300ms", "one hash at identity.registration.bcrypt-cost 12 is expected"
                + " to take 320ms", "Set the deadline above 320ms");
    }

    @Test
    void theShippedDefaultsStart() {
        PasswordHasher hasher = start(Map.of());
        assertEquals(PasswordHasher.class, hasher.getClass());
    }

    private static PasswordHasher start(Map<String, String> environment) {
        OverloadConfig overload = ProductionConfig.mapping(OverloadConfig.class, environment);
        RegistrationConfig registration = ProductionConfig.mapping(RegistrationConfig.class, environment);
        Lane executor = Lanes.bcrypt(overload, new SimpleMeterRegistry(), new DeadlineTimer(), System::nanoTime);
        return new PasswordHasher(executor, registration);
    }

    private static void assertMentions(String message, String... parts) {
        for (String part : parts) {
            assertTrue(message.contains(part), "\"" + part + "\" missing from: " + message);
        }
    }
}
