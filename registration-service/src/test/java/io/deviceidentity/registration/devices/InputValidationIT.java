package io.deviceidentity.registration.devices;

import io.deviceidentity.registration.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Bad input answered 4xx with nothing written by the packaged artifact, where a missing reflection registration would show as a 500. */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class InputValidationIT extends InputValidationTest {
}
