package io.deviceidentity.registration.api;

import io.deviceidentity.registration.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The packaged artifact, in its production profile, serves the same document and no Swagger UI. */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class OpenApiDocumentIT extends OpenApiDocumentTest {
}
