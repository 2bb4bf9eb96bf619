package io.deviceidentity.auth.overload;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/** A deadline shorter than one expensive hash, and an optimistic estimate so admission lets the work in. */
public class ShortDeadlineProfile implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "identity.overload.deadline", "300ms",
                "identity.overload.bcrypt.expected-duration", "1ms");
    }
}
