package io.deviceidentity.testsupport;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Properties;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * A test that starts the packaged service itself starts what the run tests: the JVM build for {@code type=jar},
 * the executable at native.image.path for {@code type=native}, never a JAR left in target/ by an earlier build.
 */
class PackagedServiceTest {

    private static final Map<String, String> SETTINGS = new LinkedHashMap<>(Map.of("quarkus.http.port", "8191"));

    @TempDir
    Path target;

    @Test
    void aJarArtifactIsStartedByThisJavaWithTheSettingsAsSystemProperties() {
        PackagedService jar = new PackagedService(target, artifact("jar", "quarkus-app/quarkus-run.jar"), "/nowhere");

        assertFalse(jar.isNative());
        assertEquals(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(), "-Xmx256m",
                "-Dquarkus.http.port=8191", "-jar", target.resolve("quarkus-app/quarkus-run.jar").toString()),
                jar.command(List.of("-Xmx256m"), SETTINGS));
    }

    @Test
    void aNativeArtifactIsTheExecutableAtNativeImagePathEvenWithAJarBesideIt() throws Exception {
        Files.createDirectories(target.resolve("quarkus-app"));
        Files.writeString(target.resolve("quarkus-app/quarkus-run.jar"), "an earlier JVM build");
        Path runner = Files.createFile(Files.createDirectories(target.resolve("native")).resolve("svc-1-runner"),
                PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rwxr-xr-x")));
        PackagedService executable = new PackagedService(target, artifact("native", "native/svc-1-runner"),
                runner.toString());

        assertTrue(executable.isNative());
        assertEquals(List.of(runner.toString(), "-Xmx256m", "-Dquarkus.http.port=8191"),
                executable.command(List.of("-Xmx256m"), SETTINGS));
    }

    @Test
    void aMissingExecutableIsNamedInsteadOfStartingSomethingElse() {
        PackagedService executable = new PackagedService(target, artifact("native", "native/svc-1-runner"),
                target.resolve("native/svc-1-runner").toString());

        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> executable.command(List.of(), SETTINGS));
        assertTrue(refused.getMessage().contains("native/svc-1-runner"), refused.getMessage());
    }

    @Test
    void anArtifactThatCannotRunIsRefusedWithItsType() {
        PackagedService sources = new PackagedService(target,
                artifact("native-sources", "svc-native-image-source-jar/svc-runner.jar"), "/nowhere");

        IllegalStateException refused = assertThrows(IllegalStateException.class,
                () -> sources.command(List.of(), SETTINGS));
        assertTrue(refused.getMessage().contains("native-sources"), refused.getMessage());
    }

    private static Properties artifact(String type, String path) {
        Properties properties = new Properties();
        properties.setProperty("type", type);
        properties.setProperty("path", path);
        return properties;
    }
}
