package io.deviceidentity.registration.support;

import java.util.HashMap;
import java.util.Map;

import io.deviceidentity.testsupport.ManagementInterface;
import io.deviceidentity.testsupport.TestDatabase;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Configures the packaged artifact (JAR in `make test`, native executable in `make native-it` and native.yml) that
 * {@code @QuarkusIntegrationTest} launches. It runs in its production profile, without the {@code %test.*} keys, so
 * this passes what the chart passes as environment variables, pointed at the test PostgreSQL and PgBouncer of
 * scripts/stack.sh.
 */
public class PackagedAppOnTestStack implements QuarkusTestResourceLifecycleManager {

    @Override
    public Map<String, String> start() {
        Map<String, String> settings = new HashMap<>(Map.of(
                "identity.db.port", System.getProperty("test.pgbouncer.port", "56433"),
                "identity.schema.port", System.getProperty("test.pg.port", "55433"),
                "identity.registration.tokens", Devices.TOKENS,
                "identity.registration.bcrypt-cost", "4",
                "identity.database-guard.delay", "1s",
                "quarkus.log.category.\"io.deviceidentity.outcome\".level", "WARN",
                // Warm before the first test's request, as %test does for @QuarkusTest (ReadyOnlyWhenWarmTest runs
                // the warm-up in the background, as production does).
                "identity.readiness.warm-up-in-background", "false"));
        // As the test profile: hashes at normal priority and no wait limit a busy machine's scheduler alone could
        // reach. Under SCHED_IDLE (the default without a CPU limit) the start-up warm-up's hash got no CPU beside
        // stress-ng and missed its deadline until the launch gave up.
        settings.put("identity.overload.bcrypt.idle-priority", "false");
        settings.put("identity.overload.bcrypt.max-wait", "30s");
        settings.put("identity.overload.bcrypt.target-wait", "30s");
        // TLS to PgBouncer and PostgreSQL, verified against the test stack's CA (scripts/stack.sh).
        settings.put("identity.db.sslrootcert", TestDatabase.ca().toString());
        settings.putAll(ManagementInterface.claimFreePort());
        return settings;
    }

    @Override
    public void stop() {
        // The stack belongs to `make test` (scripts/stack.sh db-up / db-down); only the port claim ends here.
        ManagementInterface.forget();
    }
}
