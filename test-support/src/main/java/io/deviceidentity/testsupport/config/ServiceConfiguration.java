package io.deviceidentity.testsupport.config;

import java.io.IOException;
import java.io.InputStream;
import java.io.StringReader;
import java.io.UncheckedIOException;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.ParameterizedType;
import java.lang.reflect.Type;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Comparator;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.Properties;
import java.util.Set;
import java.util.TreeMap;
import java.util.jar.JarFile;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;
import io.smallrye.config.WithName;
import io.smallrye.config.WithParentName;

/**
 * Every configuration key a service defines, from its code: the methods of its {@code @ConfigMapping} interfaces,
 * named as SmallRye Config names them, and the properties of its application.properties.
 */
public final class ServiceConfiguration {

    /** {@code ${ENV_NAME}} or {@code ${ENV_NAME:default}}: a property an environment variable of its own sets. */
    private static final Pattern ENV_PLACEHOLDER = Pattern.compile("\\$\\{([A-Z][A-Z0-9_]*)(?::(.*))?}", Pattern.DOTALL);
    /** How a class file that carries the annotation names it in its constant pool. */
    private static final byte[] CONFIG_MAPPING_DESCRIPTOR =
            ("L" + ConfigMapping.class.getName().replace('.', '/') + ";").getBytes(StandardCharsets.UTF_8);

    private ServiceConfiguration() {
    }

    /**
     * The keys of a service, by name. A mapping key that application.properties also sets takes its default (and,
     * for a {@code ${ENV:default}} value, its env name) from there: that is what the running service sees.
     * Profile entries ({@code %test.…}) are not keys of the service.
     */
    public static Map<String, ConfigKey> keys(String applicationProperties, Collection<Class<?>> mappings) {
        Map<String, ConfigKey> keys = new TreeMap<>();
        for (Class<?> mapping : mappings) {
            mappingKeys(mapping).forEach(key -> keys.put(key.key(), key));
        }
        Properties properties = new Properties();
        try {
            properties.load(new StringReader(applicationProperties));
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        for (String name : properties.stringPropertyNames()) {
            if (name.startsWith("%")) {
                continue;
            }
            String value = properties.getProperty(name);
            Matcher placeholder = ENV_PLACEHOLDER.matcher(value);
            boolean mapped = keys.containsKey(name);
            if (placeholder.matches()) {
                keys.put(name, new ConfigKey(name, placeholder.group(1), Optional.ofNullable(placeholder.group(2)), true));
            } else {
                keys.put(name, new ConfigKey(name, ConfigKey.envName(name), Optional.of(value), mapped));
            }
        }
        return keys;
    }

    /**
     * The keys of one {@code @ConfigMapping} interface: the prefix, then each method's name through the mapping's
     * naming strategy (kebab-case by default: {@code ConfigMapping.NamingStrategy} is the function SmallRye applies),
     * or its {@code @WithName}; a method returning a group (an interface of ours, possibly in an {@code Optional})
     * adds its methods under its name, or under the parent's with {@code @WithParentName}.
     */
    public static List<ConfigKey> mappingKeys(Class<?> mapping) {
        ConfigMapping annotation = mapping.getAnnotation(ConfigMapping.class);
        if (annotation == null) {
            throw new IllegalArgumentException(mapping.getName() + " is not a @ConfigMapping interface");
        }
        List<ConfigKey> keys = new ArrayList<>();
        walk(annotation.prefix(), mapping, annotation.namingStrategy(), false, keys);
        return keys;
    }

    private static void walk(String prefix, Class<?> group, ConfigMapping.NamingStrategy naming, boolean optional,
            List<ConfigKey> keys) {
        Method[] methods = group.getMethods();
        Arrays.sort(methods, Comparator.comparing(Method::getName));
        for (Method method : methods) {
            // Default and static methods compute from the others; they are not properties.
            if (method.isDefault() || Modifier.isStatic(method.getModifiers()) || method.getParameterCount() > 0) {
                continue;
            }
            String key = join(prefix, name(method, naming));
            Class<?> type = method.getReturnType();
            if (type == Optional.class && isGroup(typeArgument(method.getGenericReturnType()))) {
                walk(key, typeArgument(method.getGenericReturnType()), naming, true, keys);
            } else if (isGroup(type)) {
                walk(key, type, naming, optional, keys);
            } else if (Map.class.isAssignableFrom(type) || (Collection.class.isAssignableFrom(type)
                    && isGroup(typeArgument(method.getGenericReturnType())))) {
                throw new UnsupportedOperationException(group.getName() + "." + method.getName()
                        + ": maps and lists of groups have no fixed keys; teach ServiceConfiguration how to document them");
            } else {
                // Without @WithDefault a key has no value when unset (an Optional is empty, anything else is
                // required); the keys of an optional group have none until one of them is set.
                WithDefault withDefault = method.getAnnotation(WithDefault.class);
                Optional<String> defaultValue = withDefault == null || optional
                        ? Optional.empty() : Optional.of(withDefault.value());
                keys.add(new ConfigKey(key, ConfigKey.envName(key), defaultValue, true));
            }
        }
    }

    private static String name(Method method, ConfigMapping.NamingStrategy naming) {
        if (method.isAnnotationPresent(WithParentName.class)) {
            return "";
        }
        WithName withName = method.getAnnotation(WithName.class);
        return withName != null ? withName.value() : naming.apply(method.getName());
    }

    private static String join(String prefix, String name) {
        if (name.isEmpty()) {
            return prefix;
        }
        return prefix.isEmpty() ? name : prefix + "." + name;
    }

    /** A group is an interface that is not a JDK type (String, collections, ...): SmallRye maps its methods. */
    private static boolean isGroup(Class<?> type) {
        return type != null && type.isInterface() && !type.getName().startsWith("java.");
    }

    private static Class<?> typeArgument(Type type) {
        if (type instanceof ParameterizedType parameterized
                && parameterized.getActualTypeArguments()[0] instanceof Class<?> argument) {
            return argument;
        }
        return null;
    }

    /**
     * Every {@code @ConfigMapping} interface in the class-path roots (directories or jars) the given classes were
     * loaded from: a service's own classes and identity-core's, so that a mapping added anywhere in them is found
     * without being listed. Class files are searched for the annotation's descriptor before any is loaded.
     */
    public static List<Class<?>> mappingsBeside(Class<?>... anchors) {
        Set<Class<?>> found = new LinkedHashSet<>();
        for (Class<?> anchor : anchors) {
            for (String className : classesWithConfigMapping(root(anchor))) {
                try {
                    Class<?> type = Class.forName(className, false, anchor.getClassLoader());
                    if (type.isInterface() && type.isAnnotationPresent(ConfigMapping.class)) {
                        found.add(type);
                    }
                } catch (ClassNotFoundException e) {
                    throw new IllegalStateException("cannot load " + className, e);
                }
            }
        }
        return new ArrayList<>(found);
    }

    private static Path root(Class<?> anchor) {
        try {
            return Path.of(anchor.getProtectionDomain().getCodeSource().getLocation().toURI());
        } catch (URISyntaxException e) {
            throw new IllegalStateException(e);
        }
    }

    private static List<String> classesWithConfigMapping(Path root) {
        List<String> names = new ArrayList<>();
        try {
            if (Files.isDirectory(root)) {
                try (Stream<Path> files = Files.walk(root)) {
                    for (Path file : files.filter(f -> f.toString().endsWith(".class")).toList()) {
                        if (carriesConfigMapping(Files.readAllBytes(file))) {
                            names.add(className(root.relativize(file).toString().replace('\\', '/')));
                        }
                    }
                }
            } else {
                try (JarFile jar = new JarFile(root.toFile())) {
                    for (var entry : jar.stream().filter(e -> e.getName().endsWith(".class")).toList()) {
                        try (InputStream in = jar.getInputStream(entry)) {
                            if (carriesConfigMapping(in.readAllBytes())) {
                                names.add(className(entry.getName()));
                            }
                        }
                    }
                }
            }
        } catch (IOException e) {
            throw new UncheckedIOException(e);
        }
        return names;
    }

    private static String className(String path) {
        return path.substring(0, path.length() - ".class".length()).replace('/', '.');
    }

    private static boolean carriesConfigMapping(byte[] classFile) {
        outer:
        for (int i = 0; i <= classFile.length - CONFIG_MAPPING_DESCRIPTOR.length; i++) {
            for (int j = 0; j < CONFIG_MAPPING_DESCRIPTOR.length; j++) {
                if (classFile[i + j] != CONFIG_MAPPING_DESCRIPTOR[j]) {
                    continue outer;
                }
            }
            return true;
        }
        return false;
    }
}
