package io.deviceidentity;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.lang.reflect.Field;
import java.lang.reflect.Modifier;
import java.net.URISyntaxException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Random;
import java.util.SplittableRandom;
import java.util.random.RandomGenerator;
import java.util.stream.Stream;

import org.junit.jupiter.api.Test;

import io.deviceidentity.credentials.Bcrypt;

/**
 * A native image initialises the application's classes at build time (Quarkus asks for it), so whatever a static
 * field holds is frozen into the image heap. A random generator there would be seeded once, on the build machine,
 * for every process ever started from the image; GraalVM refuses to build such an image. The native analysis in
 * {@code make test} finds this across every module; this test names the field within seconds for this library.
 */
class NoRandomInImageHeapTest {

    @Test
    void noClassOfTheLibraryDeclaresAStaticRandomGenerator() throws IOException, URISyntaxException {
        Path classes = Path.of(Bcrypt.class.getProtectionDomain().getCodeSource().getLocation().toURI());
        List<String> offenders = new ArrayList<>();
        int scanned = 0;
        try (Stream<Path> files = Files.walk(classes)) {
            for (Path file : (Iterable<Path>) files.filter(f -> f.toString().endsWith(".class"))::iterator) {
                String name = classes.relativize(file).toString().replace('/', '.').replaceAll("\\.class$", "");
                Class<?> type;
                try {
                    type = Class.forName(name, false, getClass().getClassLoader());
                } catch (ClassNotFoundException | LinkageError unloadable) {
                    continue;
                }
                scanned++;
                for (Field field : type.getDeclaredFields()) {
                    if (Modifier.isStatic(field.getModifiers()) && isRandomGenerator(field.getType())) {
                        offenders.add(name + "." + field.getName());
                    }
                }
            }
        }
        assertTrue(scanned > 50, "scanned only " + scanned + " classes under " + classes);
        assertEquals(List.of(), offenders, "static fields holding a random generator (create it where it is used)");
    }

    private static boolean isRandomGenerator(Class<?> type) {
        return Random.class.isAssignableFrom(type) || SplittableRandom.class.isAssignableFrom(type)
                || type == RandomGenerator.class;
    }
}
