package io.deviceidentity.auth.authn;

import io.deviceidentity.auth.support.PackagedAppOverTls;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The EMQX authn contract, answered by the packaged artifact over HTTPS (IDENTITY_TLS_ENABLED=true, as the chart). */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOverTls.class)
class AuthnAnswersOverTlsIT extends AuthnAnswersTest {
}
