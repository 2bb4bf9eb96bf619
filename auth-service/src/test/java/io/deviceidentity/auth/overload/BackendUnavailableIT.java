package io.deviceidentity.auth.overload;

import io.deviceidentity.auth.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * PgBouncer stopped through scripts/stack.sh while the packaged artifact runs: 503 backend_unavailable, the circuit
 * opens, and the same process allows devices again once PgBouncer is back (JDBC reconnects in the native image too).
 */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class BackendUnavailableIT extends BackendUnavailableTest {
}
