package io.deviceidentity.auth.acl;

import io.deviceidentity.auth.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** No ACL escalation, answered by the packaged artifact (rules rendered the same way outside the test JVM). */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class AclEscalationIT extends AclEscalationTest {
}
