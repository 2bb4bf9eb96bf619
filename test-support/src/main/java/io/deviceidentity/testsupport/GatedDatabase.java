package io.deviceidentity.testsupport;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.util.HashMap;
import java.util.Map;

/**
 * A service's test configuration with its PgBouncer behind a shut {@link GatedTcpProxy}: the service starts with its
 * database unreachable, as when its pod starts before PgBouncer, and its warm-up runs in the background, as in
 * production. Both services' readiness tests use it through a thin Quarkus test resource of their own, which hands
 * it that service's packaged-artifact configuration.
 */
public final class GatedDatabase implements AutoCloseable {

    private final GatedTcpProxy proxy;

    private GatedDatabase(GatedTcpProxy proxy) {
        this.proxy = proxy;
    }

    /** Starts the shut proxy in front of the test PgBouncer (port from the {@code test.pgbouncer.port} property). */
    public static GatedDatabase inFrontOfTestPgBouncer() {
        try {
            return new GatedDatabase(
                    GatedTcpProxy.forTest(Integer.parseInt(System.getProperty("test.pgbouncer.port", "56433"))));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }

    /** {@code serviceConfig} with the database port moved to the proxy and the warm-up in the background. */
    public Map<String, String> configOver(Map<String, String> serviceConfig) {
        Map<String, String> config = new HashMap<>(serviceConfig);
        config.put("identity.db.port", String.valueOf(proxy.port()));
        config.put("identity.readiness.warm-up-in-background", "true");
        return config;
    }

    @Override
    public void close() {
        try {
            proxy.close();
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
