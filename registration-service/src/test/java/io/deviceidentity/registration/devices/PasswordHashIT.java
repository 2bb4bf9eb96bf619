package io.deviceidentity.registration.devices;

import io.deviceidentity.registration.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** PUT with password_hash in the packaged artifact, where a missing reflection registration would show as a 500. */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class PasswordHashIT extends PasswordHashTest {
}
