package io.deviceidentity.auth.authn;

import io.deviceidentity.auth.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Form and JSON bodies, and the 415, in the packaged artifact too. */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class BodyFormatsIT extends BodyFormatsTest {
}
