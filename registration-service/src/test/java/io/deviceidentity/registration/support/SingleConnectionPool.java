package io.deviceidentity.registration.support;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * The service with a pool of one connection (the incident's deadlock needs a bounded pool in which each request
 * wants a second connection), and hashes at the production cost so that hashing and writing really overlap.
 */
public class SingleConnectionPool implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "quarkus.datasource.jdbc.max-size", "1",
                "identity.registration.bcrypt-cost", "10");
    }
}
