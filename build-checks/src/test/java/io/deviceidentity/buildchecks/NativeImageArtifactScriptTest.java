package io.deviceidentity.buildchecks;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/native-image.sh artifact <service>}, which `make native-it` runs first: it names the executable
 * `make native` linked as the module's packaged artifact, the way Quarkus does after a native build of its own, and
 * refuses an executable that is missing or was built from other sources than those in the checkout, compared by
 * content (the record a build leaves beside it; {@code record} writes the same one here). Run on a copy of the
 * repository's layout, so that no real build output is touched.
 */
class NativeImageArtifactScriptTest {

    private static final List<String> SOURCES = List.of("pom.xml", "svc/pom.xml", "identity-core/pom.xml",
            "svc/src/main/java/Service.java", "identity-core/src/main/java/Core.java");

    @TempDir
    Path repo;
    private Path runner;

    @BeforeEach
    void aRepositoryWithALinkedExecutable() throws Exception {
        Path scripts = Files.createDirectories(repo.resolve("scripts"));
        Files.copy(Repo.ROOT.resolve("scripts/native-image.sh"), scripts.resolve("native-image.sh"),
                StandardCopyOption.COPY_ATTRIBUTES, StandardCopyOption.REPLACE_EXISTING);
        for (String file : SOURCES) {
            write(file, file);
        }
        runner = Files.createDirectories(repo.resolve("svc/target/native")).resolve("svc-1.0-runner");
        Files.writeString(runner, "linked");
        assertEquals(0, run("record", "svc").status());
    }

    @Test
    void theLinkedExecutableBecomesTheModulesNativeArtifact() throws Exception {
        Result result = run("artifact", "svc");

        assertEquals(0, result.status(), result.output());
        List<String> properties = Files.readAllLines(repo.resolve("svc/target/quarkus-artifact.properties"));
        assertTrue(properties.contains("type=native"), properties.toString());
        assertTrue(properties.contains("path=native/svc-1.0-runner"), properties.toString());
    }

    @Test
    void aSourceRewrittenWithTheSameContentIsNoChange() throws Exception {
        // As a checkout that leaves a file as it was but gives it a new modification time.
        for (String file : SOURCES) {
            write(file, file);
            Files.setLastModifiedTime(repo.resolve(file), FileTime.from(Instant.now().plusSeconds(3600)));
        }

        Result result = run("artifact", "svc");

        assertEquals(0, result.status(), result.output());
    }

    @Test
    void anExecutableBuiltFromAnotherServiceOrCoreSourceOrPomIsRefusedByName() throws Exception {
        for (String source : List.of("svc/src/main/java/Service.java", "identity-core/src/main/java/Core.java",
                "pom.xml", "svc/src/main/resources/application.properties")) {
            aRepositoryWithALinkedExecutable();
            write(source, "changed since the build");

            Result result = run("artifact", "svc");

            assertEquals(3, result.status(), result.output());
            assertTrue(result.output().contains("built from another " + source + " than the one here"),
                    result.output());
            assertFalse(Files.exists(repo.resolve("svc/target/quarkus-artifact.properties")));
        }
    }

    @Test
    void anExecutableWithoutARecordOfItsSourcesIsRefused() throws Exception {
        Files.delete(repo.resolve("svc/target/native/sources.sha256"));

        Result result = run("artifact", "svc");

        assertEquals(3, result.status(), result.output());
        assertTrue(result.output().contains("no record of the sources it was built from"), result.output());
    }

    @Test
    void noExecutableIsRefusedWithWhatToRun() throws Exception {
        Files.delete(runner);

        Result result = run("artifact", "svc");

        assertEquals(3, result.status(), result.output());
        assertTrue(result.output().contains("run make native first"), result.output());
    }

    private void write(String relative, String content) throws IOException {
        Path file = repo.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, content);
    }

    record Result(int status, String output) {
    }

    private Result run(String... arguments) throws Exception {
        List<String> command = new ArrayList<>(List.of("bash", repo.resolve("scripts/native-image.sh").toString()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        return new Result(process.exitValue(), output);
    }
}
