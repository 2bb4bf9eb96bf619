package io.deviceidentity.auth.authn;

import io.deviceidentity.auth.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * The EMQX authn contract (allow with the device's ACL, deny for wrong/unknown/revoked/over-long) answered by the
 * packaged artifact: the JAR in `make test`, the native executable in `make native-it` and native.yml, where
 * reflection-registration gaps (JSON records, the stored ACL read back from PostgreSQL) would show up as wrong bodies
 * or 500s.
 */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class AuthnAnswersIT extends AuthnAnswersTest {
}
