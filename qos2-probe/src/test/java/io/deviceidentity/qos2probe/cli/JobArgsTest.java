package io.deviceidentity.qos2probe.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

import org.junit.jupiter.api.Test;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;

import io.deviceidentity.qos2probe.Qos2Probe;
import picocli.CommandLine;

/**
 * k8s/jobs/qos2-probe-job.yaml's container args parse with the probe's real command line, so a misspelt or
 * removed flag fails `make test` instead of the Job in the cluster; and the Job really crosses two EMQX nodes,
 * registers its devices and runs the auth checks, with the token from the Secret rather than in the args.
 */
class JobArgsTest {

    private static final Path JOB = Path.of(System.getProperty("job.file", "../k8s/jobs/qos2-probe-job.yaml"));

    @Test
    void theJobsArgsParseWithTheProbesParser() throws Exception {
        JsonNode container = container();
        List<String> args = new ArrayList<>();
        container.path("args").forEach(arg -> args.add(arg.asText()));
        assertTrue(container.path("command").isMissingNode(), "the image's entrypoint runs the probe");

        CommandLine commandLine = Qos2Probe.commandLine();
        // Throws (and fails the test) on an unknown option, a bad value or a missing required option.
        CommandLine.ParseResult parsed = commandLine.parseArgs(args.toArray(String[]::new));
        assertTrue(parsed.unmatched().isEmpty(), parsed.unmatched().toString());
        ProbeCommand command = commandLine.getCommand();

        assertNotEquals(command.brokerA, command.brokerB, "A and B must be two different EMQX pods");
        assertTrue(command.brokerA.matches("device-identity-emqx-\\d+\\.device-identity-emqx-headless:1883"),
                command.brokerA);
        assertTrue(command.brokerB.matches("device-identity-emqx-\\d+\\.device-identity-emqx-headless:1883"),
                command.brokerB);
        assertTrue(command.authChecks, "the Job runs the auth checks");
        assertEquals("http://device-identity-registration-service:8082/v1/devices",
                String.valueOf(command.registerUrl));
        // The durations and counts convert (the converters throw on bad values).
        assertTrue(command.messages > 0 && command.timeout.toSeconds() > 10, "more than EMQX's 10 s authn timeout");

        JsonNode env = container.path("env").get(0);
        assertEquals(command.registrationTokenEnv, env.path("name").asText());
        assertEquals("device-identity-registration-tokens", env.path("valueFrom").path("secretKeyRef")
                .path("name").asText());
        assertEquals("tokens", env.path("valueFrom").path("secretKeyRef").path("key").asText());
        assertTrue(args.stream().noneMatch(arg -> arg.toLowerCase().contains("password=")
                || arg.toLowerCase().contains("token=")), "no secret in the args: " + args);
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
}
