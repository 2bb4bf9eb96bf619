package io.deviceidentity.registration.support;

import java.util.Map;

import io.deviceidentity.testsupport.GatedDatabase;
import io.deviceidentity.testsupport.ManagementInterface;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * The service on the test stack with its PgBouncer unreachable until the test opens the gate ({@link GatedDatabase});
 * the same map serves the packaged artifact ({@code ...IT}) and {@code @QuarkusTest}.
 */
public class DatabaseBehindGate implements QuarkusTestResourceLifecycleManager {

    private GatedDatabase gate;

    @Override
    public Map<String, String> start() {
        gate = GatedDatabase.inFrontOfTestPgBouncer();
        return gate.configOver(new PackagedAppOnTestStack().start());
    }

    @Override
    public void stop() {
        gate.close();
        ManagementInterface.forget();
    }
}
