package io.deviceidentity.auth.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

import io.deviceidentity.testsupport.GatedTcpProxy;
import io.quarkus.test.common.QuarkusTestResourceLifecycleManager;

/**
 * The service on the test stack, except that its PgBouncer is reached through a {@link GatedTcpProxy} that stays shut
 * until the test calls {@link GatedTcpProxy#openTestGate()}: the service starts with its database unreachable, as
 * when its pod starts before PgBouncer. The warm-up runs in the background, as in production. The same map serves
 * the packaged artifact ({@code ...IT}) and {@code @QuarkusTest}.
 */
public class DatabaseBehindGate implements QuarkusTestResourceLifecycleManager {

    private GatedTcpProxy proxy;

    @Override
    public Map<String, String> start() {
        try {
            proxy = GatedTcpProxy.forTest(Integer.parseInt(System.getProperty("test.pgbouncer.port", "56433")));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> config = new HashMap<>(new PackagedAppOnTestStack().start());
        config.put("identity.db.port", String.valueOf(proxy.port()));
        config.put("identity.readiness.warm-up-in-background", "true");
        return config;
    }

    @Override
    public void stop() {
        try {
            proxy.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
