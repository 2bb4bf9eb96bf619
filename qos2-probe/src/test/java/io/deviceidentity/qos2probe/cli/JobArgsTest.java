package io.deviceidentity.qos2probe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.KeyStore;
import java.security.cert.X509Certificate;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.TrustManagerFactory;
import javax.net.ssl.X509TrustManager;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.deviceidentity.qos2probe.Qos2Probe;
import io.deviceidentity.qos2probe.probe.ProbeSettings;
import io.deviceidentity.testsupport.tls.LocalCa;
import picocli.CommandLine;

/**
 * k8s/jobs/qos2-probe-job.yaml's container args parse with the probe's real command line, so a misspelt or
 * removed flag fails `make test` instead of the Job in the cluster; and the Job really crosses two EMQX nodes,
 * registers its devices and runs the auth checks, with the token from the Secret rather than in the args. With the
 * chart's TLS on, it speaks MQTT over TLS on 8883 against the CA of EMQX's certificate Secret, and registers over
 * HTTPS through a trust store its init container makes (run here with the JDK's own keytool).
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
        List<String> args = new ArrayList<>();
        for (String arg : args(container())) {
            if (arg.startsWith("--ca-file=")) {
                arg = "--ca-file=" + ca;
            } else if (arg.startsWith("--registration-token-env=")) {
                arg = "--registration-token-env=PATH";
            }
            args.add(arg);
        }
        CommandLine commandLine = Qos2Probe.commandLine();
        commandLine.parseArgs(args.toArray(String[]::new));
        ProbeSettings settings = ((ProbeCommand) commandLine.getCommand()).settings();

        for (var node : List.of(settings.nodeA(), settings.nodeB(), settings.subscriberNode())) {
            assertEquals(8883, node.port(), node.toString());
            assertTrue(node.host().matches("device-identity-emqx-\\d+\\.device-identity-emqx-headless"), node.host());
        }
        assertEquals(ca, settings.caFile(), "the probe opens TLS links (MqttLinks.tls) with this CA");
        assertEquals("https", settings.registrationUrl().getScheme());
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

    /**
     * The init container's script, as the YAML has it, run with this JDK's keytool (the image's JAVA_HOME) on a CA of
     * the project's local-ca.sh; the JVM options of the probe's container then load that store, and it trusts a
     * certificate the CA signed: the JVM's HTTP client (registration over HTTPS) trusts the release's CA.
     */
    @Test
    void theInitContainersTrustStoreIsTheOneTheProbesJvmTrusts(@TempDir Path dir) throws Exception {
        JsonNode pod = job().path("spec").path("template").path("spec");
        JsonNode init = pod.path("initContainers");
        assertEquals(1, init.size());
        JsonNode trustStore = init.get(0);
        assertEquals(container().path("image").asText(), trustStore.path("image").asText(), "the probe's own JDK");
        JsonNode caMount = mount(trustStore, "/registration-ca");
        JsonNode secret = volume(pod, caMount.path("name").asText()).path("secret");
        assertEquals("device-identity-registration-service-tls", secret.path("secretName").asText());
        assertEquals("ca.crt", secret.path("items").get(0).path("key").asText());
        JsonNode trustMount = mount(trustStore, "/trust");
        assertEquals(trustMount.path("name").asText(), mount(container(), "/trust").path("name").asText(),
                "the probe's container reads the store the init container wrote");
        assertTrue(volume(pod, trustMount.path("name").asText()).has("emptyDir"));

        LocalCa ca = LocalCa.in(dir.resolve("ca")).issue("registration-service");
        Path registrationCa = Files.createDirectories(dir.resolve("registration-ca"));
        Files.copy(ca.caCertificate(), registrationCa.resolve("ca.crt"));
        Path trust = Files.createDirectories(dir.resolve("trust"));
        List<String> command = new ArrayList<>();
        trustStore.path("command").forEach(c -> command.add(c.asText()));
        assertEquals(List.of("/bin/sh", "-c"), command);
        String script = trustStore.path("args").get(0).asText()
                .replace("/registration-ca/", registrationCa + "/").replace("/trust/", trust + "/");
        ProcessBuilder builder = new ProcessBuilder("sh", "-c", script).redirectErrorStream(true);
        builder.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process keytool = builder.start();
        String output = new String(keytool.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(keytool.waitFor(60, TimeUnit.SECONDS), output);
        assertEquals(0, keytool.exitValue(), output);

        Map<String, String> jvm = systemProperties(env(container(), "JAVA_TOOL_OPTIONS").path("value").asText());
        assertTrue(jvm.get("javax.net.ssl.trustStore").startsWith(trustMount.path("mountPath").asText() + "/"),
                jvm.toString());
        Path store = trust.resolve(Path.of(jvm.get("javax.net.ssl.trustStore")).getFileName());
        KeyStore keyStore = KeyStore.getInstance(jvm.get("javax.net.ssl.trustStoreType"));
        try (InputStream in = Files.newInputStream(store)) {
            keyStore.load(in, jvm.get("javax.net.ssl.trustStorePassword").toCharArray());
        }
        TrustManagerFactory factory = TrustManagerFactory.getInstance(TrustManagerFactory.getDefaultAlgorithm());
        factory.init(keyStore);
        X509TrustManager trustManager = (X509TrustManager) factory.getTrustManagers()[0];
        X509Certificate leaf = ca.leaf("registration-service");
        // Throws when the chain does not lead to a trusted CA.
        trustManager.checkServerTrusted(new X509Certificate[] {leaf}, "ECDHE_ECDSA");
        assertEquals(1, keyStore.size(), "the release's CA only");
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

    /** The -Dname=value options of a JAVA_TOOL_OPTIONS value. */
    private static Map<String, String> systemProperties(String options) {
        Map<String, String> properties = new HashMap<>();
        for (String option : options.trim().split("\\s+")) {
            if (option.startsWith("-D") && option.contains("=")) {
                properties.put(option.substring(2, option.indexOf('=')), option.substring(option.indexOf('=') + 1));
            }
        }
        return properties;
    }
}
