package io.deviceidentity.auth.authn;

import io.deviceidentity.auth.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** Bad input is a 4xx with a JSON reason, never a 500, in the packaged artifact too (error bodies are serialized). */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class AuthnBadInputIT extends AuthnBadInputTest {
}
