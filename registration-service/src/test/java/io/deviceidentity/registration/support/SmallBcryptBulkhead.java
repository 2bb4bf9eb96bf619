package io.deviceidentity.registration.support;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * The service's bcrypt lane cut down to one thread and one queue slot, so a test can fill it; waits are allowed
 * for as long as the test holds the thread, so that the hard cap, not the waiting-time rule, is what refuses.
 */
public class SmallBcryptBulkhead implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "identity.overload.bcrypt.concurrency", "1",
                "identity.overload.bcrypt.queue", "1",
                "identity.overload.bcrypt.max-wait", "30s",
                "identity.overload.bcrypt.target-wait", "30s");
    }
}
