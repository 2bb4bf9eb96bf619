package io.deviceidentity.testsupport;

import java.io.IOException;
import java.io.Reader;
import java.io.UncheckedIOException;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Properties;
import java.util.concurrent.TimeUnit;

/**
 * The packaged service an integration test starts as a child process of its own (a second replica, a process to
 * signal): the same artifact that {@code @QuarkusIntegrationTest} tests in that run, so that a native run proves the
 * native executable, not a JVM build left over in target/. Read, as Quarkus reads it, from the
 * {@code target/quarkus-artifact.properties} of the module under test: {@code type=jar} is the JVM build
 * ({@code java -jar}), {@code type=native} the executable at the {@code native.image.path} system property the
 * build gives the test JVM (the builder image's output, or the local toolchain's under target/native/).
 */
public final class PackagedService {

    private static final HttpClient HTTP = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(2)).build();

    private final Path target;
    private final String type;
    private final String path;
    private final String nativeImagePath;

    PackagedService(Path target, Properties artifact, String nativeImagePath) {
        this.target = target;
        this.type = artifact.getProperty("type", "");
        this.path = artifact.getProperty("path", "");
        this.nativeImagePath = nativeImagePath;
    }

    /** The artifact of the module the tests run in (its target/ directory). */
    public static PackagedService underTest() {
        Path target = Path.of("target");
        Properties artifact = new Properties();
        try (Reader in = Files.newBufferedReader(target.resolve("quarkus-artifact.properties"))) {
            artifact.load(in);
        } catch (IOException e) {
            throw new UncheckedIOException("no packaged artifact in " + target.toAbsolutePath()
                    + " (run the integration tests through Maven's verify, make test or make native-it)", e);
        }
        return new PackagedService(target, artifact, System.getProperty("native.image.path"));
    }

    public boolean isNative() {
        return type.equals("native");
    }

    /**
     * The command that starts the artifact with {@code settings} as system properties. {@code heapOptions} (such as
     * {@code -Xmx256m}) go before them: the JVM and a native executable both read -X options from their command line.
     */
    public List<String> command(List<String> heapOptions, Map<String, String> settings) {
        List<String> command = new ArrayList<>();
        switch (type) {
            case "jar" -> command.add(Path.of(System.getProperty("java.home"), "bin", "java").toString());
            case "native" -> {
                if (nativeImagePath == null || !Files.isExecutable(Path.of(nativeImagePath))) {
                    throw new IllegalStateException("the native executable " + nativeImagePath
                            + " (system property native.image.path) is missing or not executable");
                }
                command.add(nativeImagePath);
            }
            default -> throw new IllegalStateException("target/quarkus-artifact.properties names a " + type
                    + " artifact: only a JAR (jar) or a native executable (native) can be started by a test");
        }
        command.addAll(heapOptions);
        settings.forEach((key, value) -> command.add("-D" + key + "=" + value));
        if (type.equals("jar")) {
            command.addAll(List.of("-jar", target.resolve(path).toString()));
        }
        return command;
    }

    /** Starts the artifact, its standard output and error in {@code log}. */
    public Process start(List<String> heapOptions, Map<String, String> settings, Path log) throws IOException {
        Files.createDirectories(log.toAbsolutePath().getParent());
        return new ProcessBuilder(command(heapOptions, settings)).redirectErrorStream(true)
                .redirectOutput(log.toFile()).start();
    }

    @Override
    public String toString() {
        return isNative() ? "the native executable " + nativeImagePath : "the " + type + " " + target.resolve(path);
    }

    /** Status of /q/health/ready on the management port, or -1 when nothing listens there. */
    public static int readiness(int management) throws InterruptedException {
        try {
            return HTTP.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + management + "/q/health/ready"))
                    .timeout(Duration.ofSeconds(5)).build(), HttpResponse.BodyHandlers.discarding()).statusCode();
        } catch (IOException closed) {
            return -1;
        }
    }

    /** Waits up to {@code patience} for {@code process} to report ready on its management port. */
    public static void awaitReady(Process process, int management, Path log, Duration patience)
            throws InterruptedException {
        long until = System.nanoTime() + patience.toNanos();
        while (System.nanoTime() < until) {
            if (!process.isAlive()) {
                throw new AssertionError("the service exited (status " + process.exitValue() + "): see " + log);
            }
            if (readiness(management) == 200) {
                return;
            }
            Thread.sleep(200);
        }
        throw new AssertionError("the service did not become ready within " + patience + ": see " + log);
    }

    /**
     * What SIGTERM did to a service: whether readiness reported DOWN, whether the management listener closed only
     * after that, and the exit status (-1: still running a minute after the listener closed).
     */
    public record Termination(boolean readinessWentDown, boolean listenerClosedAfterwards, int exitStatus) {
    }

    /**
     * Sends SIGTERM and follows the shutdown on the management port: {@code onReadinessDown} runs when readiness
     * is first seen DOWN (a load balancer stops routing then); then waits for the process to exit. The shutdown
     * delay and timeout (5 s and 10 s) are far inside the minute each step is given.
     */
    public static Termination terminate(Process service, int management, Runnable onReadinessDown)
            throws InterruptedException {
        service.destroy(); // SIGTERM
        boolean readinessWentDown = false;
        boolean listenerClosedAfterwards = false;
        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
        while (System.nanoTime() < until) {
            int ready = readiness(management);
            if (ready == 503 && !readinessWentDown) {
                readinessWentDown = true;
                onReadinessDown.run();
            } else if (ready < 0) {
                listenerClosedAfterwards = readinessWentDown;
                break;
            }
            Thread.sleep(50);
        }
        int status = service.waitFor(60, TimeUnit.SECONDS) ? service.exitValue() : -1;
        return new Termination(readinessWentDown, listenerClosedAfterwards, status);
    }
}
