package io.deviceidentity.registration.warmup;

import io.deviceidentity.registration.support.DatabaseBehindGate;
import io.quarkus.test.common.WithTestResource;
import io.quarkus.test.junit.QuarkusIntegrationTest;

/**
 * The packaged artifact (JAR in `make test`, native executable in `make native-it` and native.yml) starts unready
 * and is warm when it says it is ready.
 */
@QuarkusIntegrationTest
@WithTestResource(DatabaseBehindGate.class)
class ReadyOnlyWhenWarmIT extends ReadyOnlyWhenWarmTest {
}
