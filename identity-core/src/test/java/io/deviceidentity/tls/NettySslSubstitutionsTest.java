package io.deviceidentity.tls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Constructor;
import java.lang.reflect.Executable;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.net.JarURLConnection;
import java.net.URL;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.jar.JarFile;
import java.util.stream.Collectors;

import org.junit.jupiter.api.Test;

import com.oracle.svm.core.annotate.Alias;
import com.oracle.svm.core.annotate.Substitute;
import com.oracle.svm.core.annotate.TargetClass;
import com.oracle.svm.core.annotate.TargetElement;

import io.netty.handler.ssl.SslContext;

/**
 * The native-image substitutions for Netty's TLS match the Netty on the classpath, checked by reflection the way
 * GraalVM's builder resolves them (its {@code AnnotationSubstitutionProcessor}), in seconds rather than in the
 * minutes {@code make native-analysis} takes: a Netty upgrade that removes a substituted method, or adds another
 * overload of {@code SslContext}'s context factories, fails here.
 */
class NettySslSubstitutionsTest {

    /** Where Quarkus keeps its Netty substitutions (quarkus-netty's runtime jar). */
    private static final String QUARKUS_NETTY_SUBSTITUTIONS = "io/quarkus/netty/runtime/graal/";

    /** The factories that choose between the JDK's TLS and OpenSSL's; OpenSSL is not in a native image. */
    private static final List<String> CONTEXT_FACTORIES = List.of("newClientContextInternal", "newServerContextInternal");

    @Test
    void everyMemberSubstitutedOrAliasedHereExistsInTheNettyOnTheClasspath() throws Exception {
        List<String> missing = new ArrayList<>();
        int members = 0;
        for (Class<?> substitution : NettySslSubstitutions.class.getDeclaredClasses()) {
            Class<?> target = target(substitution);
            for (Executable annotated : annotatedExecutables(substitution)) {
                members++;
                try {
                    Executable original = original(annotated, target);
                    if (original instanceof Method method) {
                        assertEquals(Modifier.isStatic(annotated.getModifiers()), Modifier.isStatic(method.getModifiers()),
                                "static modifier of " + annotated);
                        assertEquals(method.getReturnType(), targetOf(((Method) annotated).getReturnType()),
                                "return type of " + annotated);
                    }
                } catch (NoSuchMethodException e) {
                    missing.add(target.getName() + ": " + annotated);
                }
            }
        }
        assertTrue(members > 0, "no @Substitute or @Alias member in NettySslSubstitutions' nested classes");
        assertEquals(List.of(), missing, "not in Netty " + nettyVersion() + " (the builder stops with "
                + "'Could not find target method'): realign NettySslSubstitutions with this Netty's SslContext");
    }

    @Test
    void everyOverloadOfSslContextsFactoriesIsSubstitutedExactlyOnceByQuarkusOrHere() throws Exception {
        List<Executable> quarkus = substitutedOriginals(quarkusNettySubstitutions());
        List<Executable> here = substitutedOriginals(Arrays.asList(NettySslSubstitutions.class.getDeclaredClasses()));
        assertFalse(quarkus.isEmpty(), "found no Quarkus substitution of SslContext under " + QUARKUS_NETTY_SUBSTITUTIONS);

        List<String> wrong = new ArrayList<>();
        for (Method factory : SslContext.class.getDeclaredMethods()) {
            if (!CONTEXT_FACTORIES.contains(factory.getName())) {
                continue;
            }
            int byQuarkus = Collections.frequency(quarkus, factory);
            int byUs = Collections.frequency(here, factory);
            if (byQuarkus + byUs == 0) {
                wrong.add("not substituted (a native image would reach OpenSSL): " + factory);
            } else if (byQuarkus > 0 && byUs > 0) {
                wrong.add("substituted by Quarkus now too (the builder refuses two substitutions of one method): "
                        + "delete it from NettySslSubstitutions: " + factory);
            }
        }
        assertEquals(List.of(), wrong, "Netty " + nettyVersion());
    }

    /** The originals the {@link Substitute} methods of these substitution classes replace. */
    private static List<Executable> substitutedOriginals(List<Class<?>> substitutions) {
        List<Executable> originals = new ArrayList<>();
        for (Class<?> substitution : substitutions) {
            if (!SslContext.class.getName().equals(targetName(substitution))) {
                continue;
            }
            for (Method method : substitution.getDeclaredMethods()) {
                if (method.isAnnotationPresent(Substitute.class)) {
                    try {
                        originals.add(original(method, SslContext.class));
                    } catch (NoSuchMethodException stale) {
                        // Substitutes nothing in this Netty: everyMemberSubstitutedOrAliasedHere... reports it.
                    }
                }
            }
        }
        return originals;
    }

    /** Quarkus's Netty substitution classes, read from its jar without initialising them. */
    private static List<Class<?>> quarkusNettySubstitutions() throws IOException {
        ClassLoader loader = NettySslSubstitutionsTest.class.getClassLoader();
        URL directory = loader.getResource(QUARKUS_NETTY_SUBSTITUTIONS);
        assertTrue(directory != null && "jar".equals(directory.getProtocol()),
                "quarkus-netty's substitutions are not on the classpath at " + QUARKUS_NETTY_SUBSTITUTIONS);
        List<Class<?>> classes = new ArrayList<>();
        JarURLConnection connection = (JarURLConnection) directory.openConnection();
        connection.setUseCaches(false); // a JarFile of its own, so that closing it closes no one else's
        try (JarFile jar = connection.getJarFile()) {
            for (String entry : jar.stream().map(e -> e.getName()).collect(Collectors.toList())) {
                if (entry.startsWith(QUARKUS_NETTY_SUBSTITUTIONS) && entry.endsWith(".class")) {
                    String name = entry.substring(0, entry.length() - ".class".length()).replace('/', '.');
                    try {
                        Class<?> type = Class.forName(name, false, loader);
                        if (type.isAnnotationPresent(TargetClass.class)) {
                            classes.add(type);
                        }
                    } catch (ClassNotFoundException | LinkageError absentLibrary) {
                        // A substitution for a library this classpath lacks (zstd, Brotli, ...): not about SslContext.
                    }
                }
            }
        }
        return classes;
    }

    private static List<Executable> annotatedExecutables(Class<?> substitution) {
        List<Executable> annotated = new ArrayList<>();
        for (Executable executable : concat(substitution.getDeclaredMethods(), substitution.getDeclaredConstructors())) {
            if (executable.isAnnotationPresent(Substitute.class) || executable.isAnnotationPresent(Alias.class)) {
                annotated.add(executable);
            }
        }
        return annotated;
    }

    private static List<Executable> concat(Method[] methods, Constructor<?>[] constructors) {
        List<Executable> all = new ArrayList<>(Arrays.asList(methods));
        all.addAll(Arrays.asList(constructors));
        return all;
    }

    /** The member an annotated one stands for: same name (or {@link TargetElement}), target types for alias types. */
    private static Executable original(Executable annotated, Class<?> target) throws NoSuchMethodException {
        Class<?>[] parameters = Arrays.stream(annotated.getParameterTypes())
                .map(NettySslSubstitutionsTest::targetOf).toArray(Class<?>[]::new);
        TargetElement element = annotated.getAnnotation(TargetElement.class);
        String name = element != null && !element.name().isEmpty() ? element.name() : annotated.getName();
        if (annotated instanceof Constructor || TargetElement.CONSTRUCTOR_NAME.equals(name)) {
            return target.getDeclaredConstructor(parameters);
        }
        return target.getDeclaredMethod(name, parameters);
    }

    /** A type as the builder sees it: a {@link TargetClass} stands for its target (arrays of it too). */
    private static Class<?> targetOf(Class<?> type) {
        if (type.isArray()) {
            return targetOf(type.getComponentType()).arrayType();
        }
        return type.isAnnotationPresent(TargetClass.class) ? target(type) : type;
    }

    private static Class<?> target(Class<?> substitution) {
        String name = targetName(substitution);
        assertTrue(name != null, "only value or className targets are resolved here: " + substitution);
        try {
            return Class.forName(name, false, substitution.getClassLoader());
        } catch (ClassNotFoundException e) {
            throw new AssertionError("the target of " + substitution + " is not on the classpath", e);
        }
    }

    /** The target's name, or null for the forms not resolved here (inner class names, a class name provider). */
    private static String targetName(Class<?> substitution) {
        TargetClass annotation = substitution.getAnnotation(TargetClass.class);
        if (annotation.innerClass().length > 0 || annotation.classNameProvider() != TargetClass.NoClassNameProvider.class) {
            return null;
        }
        return annotation.value() != TargetClass.class ? annotation.value().getName() : annotation.className();
    }

    private static String nettyVersion() {
        return String.valueOf(SslContext.class.getPackage().getImplementationVersion());
    }
}
