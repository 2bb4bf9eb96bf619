package io.deviceidentity.registration.devices;

import io.deviceidentity.registration.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** PgBouncer stopped under the packaged artifact: 503 backend_unavailable, nothing stored, and recovery in the same process. */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class DatabaseOutageIT extends DatabaseOutageTest {
}
