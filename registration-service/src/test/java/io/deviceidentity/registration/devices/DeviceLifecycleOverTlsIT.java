package io.deviceidentity.registration.devices;

import io.deviceidentity.registration.support.PackagedAppOverTls;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/** The credential lifecycle answered by the packaged artifact over HTTPS (IDENTITY_TLS_ENABLED=true, as the chart). */
@QuarkusIntegrationTest
@WithTestResource(PackagedAppOverTls.class)
class DeviceLifecycleOverTlsIT extends DeviceLifecycleTest {
}
