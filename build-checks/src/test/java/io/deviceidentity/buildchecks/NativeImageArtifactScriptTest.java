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
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/native-image.sh artifact <service>}, which `make native-it` runs first: it names the executable
 * `make native` linked as the module's packaged artifact, the way Quarkus does after a native build of its own, and
 * refuses an executable that is missing or older than the sources it would be tested for. Run on a copy of the
 * repository's layout, so that no real build output is touched.
 */
class NativeImageArtifactScriptTest {

    private static final Instant LINKED = Instant.parse("2026-01-02T03:04:05Z");

    @TempDir
    Path repo;
    private Path runner;

    @BeforeEach
    void aRepositoryWithALinkedExecutable() throws IOException {
        Path scripts = Files.createDirectories(repo.resolve("scripts"));
        Files.copy(Repo.ROOT.resolve("scripts/native-image.sh"), scripts.resolve("native-image.sh"),
                StandardCopyOption.COPY_ATTRIBUTES, StandardCopyOption.REPLACE_EXISTING);
        for (String file : List.of("pom.xml", "svc/pom.xml", "identity-core/pom.xml",
                "svc/src/main/java/Service.java", "identity-core/src/main/java/Core.java")) {
            writeOlderThanTheLink(file);
        }
        runner = Files.createDirectories(repo.resolve("svc/target/native")).resolve("svc-1.0-runner");
        Files.writeString(runner, "linked");
        Files.setLastModifiedTime(runner, FileTime.from(LINKED));
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
    void anExecutableOlderThanAServiceOrCoreSourceIsRefusedByName() throws Exception {
        for (String source : List.of("svc/src/main/java/Service.java", "identity-core/src/main/java/Core.java",
                "pom.xml")) {
            aRepositoryWithALinkedExecutable();
            Files.setLastModifiedTime(repo.resolve(source), FileTime.from(LINKED.plusSeconds(60)));

            Result result = run("artifact", "svc");

            assertEquals(3, result.status(), result.output());
            assertTrue(result.output().contains("older than " + source), result.output());
            assertFalse(Files.exists(repo.resolve("svc/target/quarkus-artifact.properties")));
        }
    }

    @Test
    void noExecutableIsRefusedWithWhatToRun() throws Exception {
        Files.delete(runner);

        Result result = run("artifact", "svc");

        assertEquals(3, result.status(), result.output());
        assertTrue(result.output().contains("run make native first"), result.output());
    }

    private void writeOlderThanTheLink(String relative) throws IOException {
        Path file = repo.resolve(relative);
        Files.createDirectories(file.getParent());
        Files.writeString(file, relative);
        Files.setLastModifiedTime(file, FileTime.from(LINKED.minusSeconds(60)));
    }

    record Result(int status, String output) {
    }

    private Result run(String... arguments) throws Exception {
        List<String> command = new java.util.ArrayList<>(List.of("bash", repo.resolve("scripts/native-image.sh")
                .toString()));
        command.addAll(List.of(arguments));
        Process process = new ProcessBuilder(command).redirectErrorStream(true).start();
        String output = new String(process.getInputStream().readAllBytes());
        assertTrue(process.waitFor(30, TimeUnit.SECONDS));
        return new Result(process.exitValue(), output);
    }
}
