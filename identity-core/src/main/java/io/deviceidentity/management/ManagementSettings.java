package io.deviceidentity.management;

import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.OptionalInt;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.eclipse.microprofile.config.spi.ConfigSource;

import io.smallrye.config.ConfigSourceContext;
import io.smallrye.config.ConfigSourceFactory;
import io.smallrye.config.ConfigValue;
import io.smallrye.config.PropertiesConfigSource;

/**
 * Sets {@code quarkus.management.port} (a run-time key) from {@code identity.management.port}
 * ({@link ManagementConfig}), or from the main port + {@value #OFFSET} when that is unset, and
 * {@code quarkus.management.host} (run time too) from {@code identity.management.host} when that is set. Quarkus's own default (9000
 * for every service) would make the second service on a machine fail to start. Registered through
 * {@code META-INF/services/io.smallrye.config.ConfigSourceFactory}; ordinal below application.properties.
 */
public class ManagementSettings implements ConfigSourceFactory {

    /** Distance of the default management port from the main port. */
    public static final int OFFSET = 1000;

    private static final Pattern EXPRESSION = Pattern.compile("\\$\\{([^:{}]+)(?::([^{}]*))?}");

    @Override
    public Iterable<ConfigSource> getConfigSources(ConfigSourceContext context) {
        Map<String, String> properties = properties(text(context, "identity.management.port"),
                text(context, "quarkus.http.port"), text(context, "identity.management.host"));
        return List.of(new PropertiesConfigSource(properties, "identity.management", 200));
    }

    /** The Quarkus keys for these values: the port ({@link #port}), and the host when one is set. */
    static Map<String, String> properties(String explicitPort, String mainPort, String host) {
        Map<String, String> properties = new HashMap<>();
        port(explicitPort, mainPort).ifPresent(port -> properties.put("quarkus.management.port", Integer.toString(port)));
        if (host != null) {
            properties.put("quarkus.management.host", host.strip());
        }
        return properties;
    }

    /** The management port for these values: the explicit one, else main + OFFSET; empty when neither is a number. */
    static OptionalInt port(String explicit, String main) {
        if (explicit != null) {
            return OptionalInt.of(Integer.parseInt(explicit.strip()));
        }
        if (main != null && main.strip().matches("[1-9][0-9]*")) {
            return OptionalInt.of(Integer.parseInt(main.strip()) + OFFSET);
        }
        return OptionalInt.empty();
    }

    /** A value as the sources hold it, with one {@code ${NAME:default}} level resolved (application.properties'
     * {@code quarkus.http.port=${AUTH_PORT:8081}}), in case the context hands it over unexpanded. */
    private static String text(ConfigSourceContext context, String key) {
        ConfigValue value = context.getValue(key);
        String text = value == null || value.getValue() == null || value.getValue().isBlank() ? null : value.getValue();
        Matcher expression = text == null ? null : EXPRESSION.matcher(text.strip());
        if (expression != null && expression.matches()) {
            String resolved = text(context, expression.group(1));
            return resolved != null ? resolved : expression.group(2);
        }
        return text;
    }

}
