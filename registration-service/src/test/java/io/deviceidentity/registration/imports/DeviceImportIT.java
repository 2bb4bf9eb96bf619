package io.deviceidentity.registration.imports;

import io.deviceidentity.registration.support.PackagedAppOnTestStack;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The import in the packaged artifact, production profile: the 16 KiB body limit applies to everything else. */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOnTestStack.class)
class DeviceImportIT extends DeviceImportTest {
}
