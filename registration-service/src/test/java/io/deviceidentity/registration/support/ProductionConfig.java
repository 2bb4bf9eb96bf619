package io.deviceidentity.registration.support;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.net.URL;
import java.util.HashMap;
import java.util.Map;

import io.smallrye.config.EnvConfigSource;
import io.smallrye.config.PropertiesConfigSource;
import io.smallrye.config.SmallRyeConfig;
import io.smallrye.config.SmallRyeConfigBuilder;

/**
 * The service's configuration mappings as production builds them: this module's application.properties without the
 * {@code %test} profile, and environment variables under the names an operator sets ({@code IDENTITY_OVERLOAD_DEADLINE}),
 * through SmallRye Config and Quarkus's converters ({@code 4s}, {@code 16K}). For checks that must hold for the shipped
 * defaults, which the test profile overrides.
 */
public final class ProductionConfig {

    private ProductionConfig() {
    }

    /** The mapping {@code type} with {@code environment} set (REGISTRATION_TOKENS has a stand-in unless given). */
    public static <T> T mapping(Class<T> type, Map<String, String> environment) {
        Map<String, String> env = new HashMap<>(Map.of("REGISTRATION_TOKENS", "config-test:read:config-test-token-0123456789"));
        env.putAll(environment);
        URL properties = ProductionConfig.class.getClassLoader().getResource("application.properties");
        try {
            SmallRyeConfig config = new SmallRyeConfigBuilder()
                    .addDiscoveredConverters()
                    .withSources(new PropertiesConfigSource(properties, 250), new EnvConfigSource(env, 300))
                    .withMapping(type)
                    .build();
            return config.getConfigMapping(type);
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
    }
}
