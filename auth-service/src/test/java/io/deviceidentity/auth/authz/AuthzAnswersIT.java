package io.deviceidentity.auth.authz;

import io.deviceidentity.auth.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The EMQX authz contract, including rules parsed from the stored ACL JSON, answered by the packaged artifact. */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class AuthzAnswersIT extends AuthzAnswersTest {
}
