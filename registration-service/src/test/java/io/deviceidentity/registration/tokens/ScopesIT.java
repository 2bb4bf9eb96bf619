package io.deviceidentity.registration.tokens;

import io.deviceidentity.registration.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Token scopes checked by the packaged artifact. */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class ScopesIT extends ScopesTest {
}
