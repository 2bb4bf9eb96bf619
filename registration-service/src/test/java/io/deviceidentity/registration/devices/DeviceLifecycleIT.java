package io.deviceidentity.registration.devices;

import io.deviceidentity.registration.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The credential lifecycle (create, replace, read without the hash, revoke, re-activate) answered by the packaged artifact. */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class DeviceLifecycleIT extends DeviceLifecycleTest {
}
