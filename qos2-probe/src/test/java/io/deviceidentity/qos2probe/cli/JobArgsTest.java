package io.deviceidentity.qos2probe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.deviceidentity.qos2probe.Qos2Probe;
import io.deviceidentity.qos2probe.probe.ProbeSettings;
import picocli.CommandLine;

/**
 * k8s/jobs/qos2-probe-job.yaml's container args parse with the probe's real command line, so a misspelt or
 * removed flag fails `make test` instead of the Job in the cluster; and the Job really crosses two EMQX nodes,
 * registers its devices and runs the auth checks, with the token from the Secret rather than in the args. With the
 * chart's TLS on, it speaks MQTT over TLS on 8883 against the CA of EMQX's certificate Secret, and registers over
 * HTTPS against the CA of registration-service's certificate Secret (--register-ca-file), with nothing prepared for
 * the JVM (no init container, no JAVA_TOOL_OPTIONS).
 */
class JobArgsTest {

    private static final Path JOB = Path.of(System.getProperty("job.file", "../k8s/jobs/qos2-probe-job.yaml"));
    private static final String BROKER = "device-identity-emqx-\\d+\\.device-identity-emqx-headless:8883";

    @Test
    void theJobsArgsParseWithTheProbesParser() throws Exception {
        JsonNode container = container();
        List<String> args = args(container);
        assertTrue(container.path("command").isMissingNode(), "the image's entrypoint runs the probe");

        CommandLine commandLine = Qos2Probe.commandLine();
        // Throws (and fails the test) on an unknown option, a bad value or a missing required option.
        CommandLine.ParseResult parsed = commandLine.parseArgs(args.toArray(String[]::new));
        assertTrue(parsed.unmatched().isEmpty(), parsed.unmatched().toString());
        ProbeCommand command = commandLine.getCommand();

        assertNotEquals(command.brokerA, command.brokerB, "A and B must be two different EMQX pods");
        assertTrue(command.brokerA.matches(BROKER), command.brokerA);
        assertTrue(command.brokerB.matches(BROKER), command.brokerB);
        assertTrue(command.subscriberBroker.matches(BROKER), command.subscriberBroker);
        assertEquals(Path.of("/tls/ca.crt"), command.caFile, "MQTT over TLS, verified against the mounted CA");
        assertTrue(command.authChecks, "the Job runs the auth checks");
        assertEquals("https://device-identity-registration-service:8082/v1/devices",
                String.valueOf(command.registerUrl));
        assertEquals(Path.of("/registration-ca/ca.crt"), command.registerCaFile,
                "registration over HTTPS, verified against the mounted CA");
        // The durations and counts convert (the converters throw on bad values).
        assertTrue(command.messages > 0 && command.timeout.toSeconds() > 10, "more than EMQX's 10 s authn timeout");

        JsonNode env = env(container, "REGISTRATION_TOKENS");
        assertEquals(command.registrationTokenEnv, env.path("name").asText());
        assertEquals("device-identity-registration-tokens", env.path("valueFrom").path("secretKeyRef")
                .path("name").asText());
        assertEquals("tokens", env.path("valueFrom").path("secretKeyRef").path("key").asText());
        assertTrue(args.stream().noneMatch(arg -> arg.toLowerCase().contains("password=")
                || arg.toLowerCase().contains("token=")), "no secret in the args: " + args);
    }

    /**
     * The command's whole validation (ProbeCommand.settings(), what the probe checks before it connects): the Job's
     * args with the CA path pointed at a readable PEM here and the token read from a variable this JVM has, since
     * /tls/ca.crt and REGISTRATION_TOKENS exist in the pod only. Every broker is then dialled on 8883 over TLS.
     */
    @Test
    void theJobsArgsPassTheProbesValidationAsMqttOverTls(@TempDir Path dir) throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.crt"), "a readable file; settings() only checks that\n");
        Path registrationCa = Files.writeString(dir.resolve("registration-ca.crt"), "readable too\n");
        ProbeSettings settings = settings(jobArgs(ca, registrationCa));


        for (var node : List.of(settings.nodeA(), settings.nodeB(), settings.subscriberNode())) {
            assertEquals(8883, node.port(), node.toString());
            assertTrue(node.host().matches("device-identity-emqx-\\d+\\.device-identity-emqx-headless"), node.host());
        }
        assertEquals(ca, settings.caFile(), "the probe opens TLS links (MqttLinks.tls) with this CA");
        assertEquals("https", settings.registrationUrl().getScheme());
        assertEquals(registrationCa, settings.registrationCaFile(), "DeviceRegistrar trusts this CA only");
    }

    /** The validation can fail: an unreadable CA file, or a CA for a plain http:// registration URL, are refused. */
    @Test
    void theRegistrationCaNeedsAReadableFileAndAnHttpsUrl(@TempDir Path dir) throws Exception {
        Path ca = Files.writeString(dir.resolve("ca.crt"), "readable\n");
        List<String> job = jobArgs(ca, ca);

        List<String> unreadable = jobArgs(ca, dir.resolve("missing.crt"));
        CommandLine.ParameterException missing = assertThrows(CommandLine.ParameterException.class,
                () -> settings(unreadable));
        assertTrue(missing.getMessage().contains("--register-ca-file: cannot read " + dir.resolve("missing.crt")),
                missing.getMessage());

        List<String> plain = job.stream().map(arg -> arg.startsWith("--register-url=")
                ? "--register-url=http://device-identity-registration-service:8082/v1/devices" : arg).toList();
        CommandLine.ParameterException http = assertThrows(CommandLine.ParameterException.class,
                () -> settings(plain));
        assertTrue(http.getMessage().contains("https://"), http.getMessage());

        List<String> noUrl = job.stream().filter(arg -> !arg.startsWith("--register-url=")).toList();
        assertThrows(CommandLine.ParameterException.class, () -> settings(noUrl), "a CA for no registration at all");
    }

    /**
     * registration-service's CA is the ca.crt of its certificate Secret, mounted read-only into the probe's own
     * container: nothing is prepared for the JVM any more (no init container writing a trust store, no
     * JAVA_TOOL_OPTIONS pointing the JVM at one).
     */
    @Test
    void theRegistrationCaIsRegistrationServicesCertificateSecretsCaMountedIntoTheProbe() throws Exception {
        JsonNode pod = job().path("spec").path("template").path("spec");
        assertTrue(pod.path("initContainers").isMissingNode() || pod.path("initContainers").isEmpty(),
                "no init container: " + pod.path("initContainers"));
        for (JsonNode env : container().path("env")) {
            assertNotEquals("JAVA_TOOL_OPTIONS", env.path("name").asText(), "the JVM's trust store stays the JVM's");
        }
        String file = args(container()).stream().filter(arg -> arg.startsWith("--register-ca-file="))
                .map(arg -> arg.substring("--register-ca-file=".length())).findFirst().orElseThrow();
        JsonNode mount = mount(container(), Path.of(file).getParent().toString());
        assertTrue(mount.path("readOnly").asBoolean(), mount.toString());
        JsonNode secret = volume(pod, mount.path("name").asText()).path("secret");
        assertEquals("device-identity-registration-service-tls", secret.path("secretName").asText());
        assertEquals(1, secret.path("items").size(), secret.toString());
        assertEquals("ca.crt", secret.path("items").get(0).path("key").asText());
        assertEquals(Path.of(file).getFileName().toString(), secret.path("items").get(0).path("path").asText());
    }

    /**
     * The Job's args with its CA files pointed at readable files here and the token read from a variable this JVM
     * has, since the mounted files and REGISTRATION_TOKENS exist in the pod only.
     */
    private static List<String> jobArgs(Path ca, Path registrationCa) throws Exception {
        List<String> args = new ArrayList<>();
        for (String arg : args(container())) {
            if (arg.startsWith("--ca-file=")) {
                arg = "--ca-file=" + ca;
            } else if (arg.startsWith("--register-ca-file=")) {
                arg = "--register-ca-file=" + registrationCa;
            } else if (arg.startsWith("--registration-token-env=")) {
                arg = "--registration-token-env=PATH";
            }
            args.add(arg);
        }
        return args;
    }

    /** ProbeCommand.settings(): the probe's whole parsing and validation, without running anything. */
    private static ProbeSettings settings(List<String> args) {
        CommandLine commandLine = Qos2Probe.commandLine();
        commandLine.parseArgs(args.toArray(String[]::new));
        return ((ProbeCommand) commandLine.getCommand()).settings();
    }

    /** --ca-file is the ca.crt of EMQX's certificate Secret, the only key mounted, read-only. */
    @Test
    void theCaFileIsEmqxsCertificateSecretsCa() throws Exception {
        JsonNode pod = job().path("spec").path("template").path("spec");
        JsonNode mount = mount(container(), "/tls");
        assertTrue(mount.path("readOnly").asBoolean(), mount.toString());
        JsonNode secret = volume(pod, mount.path("name").asText()).path("secret");
        assertEquals("device-identity-emqx-tls", secret.path("secretName").asText());
        assertEquals(1, secret.path("items").size(), secret.toString());
        assertEquals("ca.crt", secret.path("items").get(0).path("key").asText());
        assertEquals("ca.crt", secret.path("items").get(0).path("path").asText());
    }

    @Test
    void theJobIsAdmittedByRegistrationServicesNetworkPolicy() throws Exception {
        JsonNode labels = job().path("spec").path("template").path("metadata").path("labels");
        assertEquals("true", labels.path("device-identity.io/registration-client").asText());
    }

    @Test
    void aMisspeltFlagIsRefusedByTheParser() {
        assertTrue(Qos2Probe.execute("--broker-a=127.0.0.1:1", "--auth-check") == 2, "picocli's usage error code");
    }

    private static JsonNode job() throws Exception {
        return new ObjectMapper(new YAMLFactory()).readTree(JOB.toFile());
    }

    private static JsonNode container() throws Exception {
        JsonNode containers = job().path("spec").path("template").path("spec").path("containers");
        assertEquals(1, containers.size());
        assertEquals("device-identity/qos2-probe:0.1.0", containers.get(0).path("image").asText());
        return containers.get(0);
    }

    private static List<String> args(JsonNode container) {
        List<String> args = new ArrayList<>();
        container.path("args").forEach(arg -> args.add(arg.asText()));
        return args;
    }

    private static JsonNode env(JsonNode container, String name) {
        for (JsonNode env : container.path("env")) {
            if (env.path("name").asText().equals(name)) {
                return env;
            }
        }
        throw new AssertionError(name + " not in " + container.path("env"));
    }

    private static JsonNode mount(JsonNode container, String path) {
        for (JsonNode mount : container.path("volumeMounts")) {
            if (mount.path("mountPath").asText().equals(path)) {
                return mount;
            }
        }
        throw new AssertionError("nothing mounted at " + path + " in " + container.path("name"));
    }

    private static JsonNode volume(JsonNode pod, String name) {
        for (JsonNode volume : pod.path("volumes")) {
            if (volume.path("name").asText().equals(name)) {
                return volume;
            }
        }
        throw new AssertionError("no volume " + name);
    }
}
