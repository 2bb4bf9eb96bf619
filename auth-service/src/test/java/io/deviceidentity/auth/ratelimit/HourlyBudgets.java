package io.deviceidentity.auth.ratelimit;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * The failure budgets per hour instead of per minute, so that none slides back while a test runs on a slow machine,
 * and a per-address budget of 20 (the suite's other tests lift it: they all send from 127.0.0.1). Shared by the budget
 * tests so that Quarkus starts once for all of them.
 */
public class HourlyBudgets implements QuarkusTestProfile {

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of("identity.auth.rate-limit.period", "1h",
                "identity.auth.rate-limit.source-failures", "20");
    }
}
