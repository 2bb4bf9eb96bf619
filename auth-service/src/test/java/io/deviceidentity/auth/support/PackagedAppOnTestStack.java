package io.deviceidentity.auth.support;

import java.util.HashMap;
import java.util.Map;

import io.deviceidentity.testsupport.ManagementInterface;
import io.deviceidentity.testsupport.TestDatabase;

import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * Configures the packaged artifact (JAR in `make test`, native executable in `make native-it` and native.yml) that
 * {@code @QuarkusIntegrationTest} launches. The artifact runs in its production profile, so it does not see the
 * {@code %test.*} keys of application.properties; this passes it the same things the chart passes as environment
 * variables, pointed at the test PostgreSQL and PgBouncer that scripts/stack.sh started (ports from the test.pg.port /
 * test.pgbouncer.port system properties that Maven gives the test JVM). Quarkus hands the returned map to the
 * artifact as system properties.
 */
public class PackagedAppOnTestStack implements QuarkusTestResourceLifecycleManager {

    /** The same key as application.properties' %test profile, so verifiers written by either are readable by both. */
    public static final String FAST_PATH_KEYS = "test-1:dGVzdC1vbmx5LWZhc3QtcGF0aC1rZXktMDAwMDAwMDAwMDAwMDAwMA==";

    @Override
    public Map<String, String> start() {
        Map<String, String> settings = new HashMap<>(settings(0));
        settings.putAll(ManagementInterface.claimFreePort());
        return settings;
    }

    /** What the packaged artifact runs with, its management interface on {@code managementPort} (0: unset here). */
    public static Map<String, String> settings(int managementPort) {
        Map<String, String> settings = new HashMap<>(Map.ofEntries(
                Map.entry("identity.db.port", System.getProperty("test.pgbouncer.port", "56433")),
                Map.entry("identity.schema.port", System.getProperty("test.pg.port", "55433")),
                // TLS to PgBouncer and PostgreSQL, verified against the test stack's CA (scripts/stack.sh).
                Map.entry("identity.db.sslrootcert", TestDatabase.ca().toString()),
                // The tests write device rows themselves: the table must exist even when the ITs run alone.
                Map.entry("identity.schema.migrate", "true"),
                // One bcrypt thread and a short queue make overload reachable from outside on any runner size.
                Map.entry("identity.overload.bcrypt.concurrency", "1"),
                Map.entry("identity.overload.bcrypt.queue", "8"),
                // As the test profile: no wait limit a busy machine's scheduler alone could reach, and hashes at
                // normal priority, which SCHED_IDLE would starve beside any other busy process (application.properties).
                Map.entry("identity.overload.bcrypt.max-wait", "30s"),
                Map.entry("identity.overload.bcrypt.target-wait", "30s"),
                Map.entry("identity.overload.bcrypt.idle-priority", "false"),
                // The chart passes the key set from its Secret; the tests use the test profile's fixed key.
                Map.entry("identity.auth.fast-path.keys", FAST_PATH_KEYS),
                // As the test profile: every request comes from 127.0.0.1, so the per-address failure budgets (10
                // wrong passwords a minute) would let one suite's wrong-password cases deny the next suite's devices.
                // The budgets have their own tests (ratelimit/).
                Map.entry("identity.auth.rate-limit.source-failures", "1000000"),
                Map.entry("identity.auth.rate-limit.source-guesses", "1000000"),
                Map.entry("quarkus.log.category.\"io.deviceidentity.outcome\".level", "WARN"),
                // Warm before the first test's request, as %test does for @QuarkusTest: tests that count hashes
                // and refusals must not share bcrypt with the warm-up (ReadyOnlyWhenWarmTest runs it as production does).
                Map.entry("identity.readiness.warm-up-in-background", "false")));
        if (managementPort > 0) {
            settings.putAll(ManagementInterface.settings(managementPort));
        }
        return settings;
    }

    @Override
    public void stop() {
        // The stack belongs to `make test` (scripts/stack.sh db-up / db-down); only the port claim ends here.
        ManagementInterface.forget();
    }
}
