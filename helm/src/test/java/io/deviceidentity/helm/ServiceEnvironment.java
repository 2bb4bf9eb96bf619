package io.deviceidentity.helm;

import java.io.IOException;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Optional;
import java.util.OptionalDouble;
import java.util.OptionalInt;
import java.util.OptionalLong;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.smallrye.config.ConfigMappingInterface.Property;
import io.smallrye.config.ConfigMappings;
import io.smallrye.config.common.utils.StringUtil;

/**
 * The environment variables a service reads, from its own sources: the {@code ${NAME}} / {@code ${NAME:default}}
 * placeholders of its application.properties, the keys of that file, and the properties of its @ConfigMapping
 * interfaces (enumerated by SmallRye Config itself, {@code ConfigMappings.getProperties}, so nested groups and
 * {@code @WithName} come out as the service sees them).
 *
 * A key is read from the environment under the name SmallRye's EnvConfigSource looks up for it: every character that
 * is not a letter or digit replaced by '_', upper-cased ({@code StringUtil.replaceNonAlphanumericByUnderscores}, the
 * rule of MicroProfile Config's environment source). Other Quarkus keys could be set by environment too, but a
 * deployment that needs one puts it in application.properties first, so this set is deliberately strict.
 *
 * @param required names with no default: the service does not start without them
 */
record ServiceEnvironment(String service, Set<String> reads, Set<String> required) {

    /** Placeholders that name an environment variable (upper case), not another property ({@code ${identity.db.host}}). */
    private static final Pattern PLACEHOLDER = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*)(:[^}]*)?}");

    /** Build-time keys for the manifest itself: not read at run time. */
    private static final List<String> BUILD_TIME_PREFIXES = List.of("quarkus.kubernetes.", "quarkus.container-image.");

    /** {@code ENV NAME=...} of a Dockerfile. */
    private static final Pattern IMAGE_ENV = Pattern.compile("(?m)^ENV\\s+([A-Z_][A-Z0-9_]*)=");

    static ServiceEnvironment of(String service, List<Class<?>> configMappings) {
        ServiceEnvironment own = of(service,
                Chart.read(Chart.REPO.resolve(service).resolve("src/main/resources/application.properties")),
                configMappings);
        // The JVM image's start script (run-java.sh) reads the variables its Dockerfile sets, such as JAVA_OPTS_APPEND,
        // which the chart replaces for pods below one CPU (jvm.c1BelowOneCpu).
        Set<String> reads = new TreeSet<>(own.reads());
        Matcher image = IMAGE_ENV.matcher(
                Chart.read(Chart.REPO.resolve(service).resolve("src/main/docker/Dockerfile.jvm")));
        while (image.find()) {
            reads.add(image.group(1));
        }
        return new ServiceEnvironment(service, Set.copyOf(reads), own.required());
    }

    static ServiceEnvironment of(String service, String applicationProperties, List<Class<?>> configMappings) {
        Map<String, String> properties = runtimeProperties(applicationProperties);
        Set<String> reads = new TreeSet<>();
        Set<String> required = new TreeSet<>();
        properties.forEach((key, value) -> {
            reads.add(envName(key));
            Matcher m = PLACEHOLDER.matcher(value);
            while (m.find()) {
                reads.add(m.group(1));
                if (m.group(2) == null) {
                    required.add(m.group(1));
                }
            }
        });
        for (Class<?> mapping : configMappings) {
            ConfigMappings.getProperties(ConfigMappings.ConfigClass.configClass(mapping)).forEach((path, property) -> {
                // A list is named "tokens[*]" and is also read whole, comma-separated, from "tokens" (what the
                // services use); a map's keys ("*") cannot be listed, so its entries are not part of the contract.
                String name = path.replaceFirst("\\[\\*]$", "");
                if (name.contains("*")) {
                    return;
                }
                reads.add(envName(name));
                if (isRequired(property) && !properties.containsKey(name)) {
                    required.add(envName(name));
                }
            });
        }
        return new ServiceEnvironment(service, Set.copyOf(reads), Set.copyOf(required));
    }

    static String envName(String property) {
        return StringUtil.replaceNonAlphanumericByUnderscores(property).toUpperCase(Locale.ROOT);
    }

    /** The classes of a service's sources (and identity-core's) that carry @ConfigMapping, by simple file scan. */
    static Set<String> configMappingClassesInSources(String... modules) {
        Set<String> classes = new TreeSet<>();
        for (String module : modules) {
            Path root = Chart.REPO.resolve(module).resolve("src/main/java");
            try (Stream<Path> files = Files.walk(root)) {
                files.filter(f -> f.toString().endsWith(".java"))
                        .filter(f -> Chart.read(f).contains("@ConfigMapping("))
                        .forEach(f -> classes.add(root.relativize(f).toString().replace('/', '.').replaceAll("\\.java$", "")));
            } catch (IOException e) {
                throw new UncheckedIOException(e);
            }
        }
        return classes;
    }

    private static boolean isRequired(Property property) {
        if (property.hasDefaultValue() || property.isOptional() || property.isGroup() || property.isMap()) {
            return false;
        }
        Class<?> type = property.getMethod().getReturnType();
        return type != Optional.class && type != OptionalInt.class && type != OptionalLong.class && type != OptionalDouble.class;
    }

    /** Keys of the default profile that are read at run time. */
    private static Map<String, String> runtimeProperties(String text) {
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(text));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        Map<String, String> kept = new TreeMap<>();
        properties.forEach((k, v) -> {
            String key = (String) k;
            if (!key.startsWith("%") && BUILD_TIME_PREFIXES.stream().noneMatch(key::startsWith)) {
                kept.put(key, (String) v);
            }
        });
        return kept;
    }
}
