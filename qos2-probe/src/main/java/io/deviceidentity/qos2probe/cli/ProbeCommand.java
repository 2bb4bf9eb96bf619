package io.deviceidentity.qos2probe.cli;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.time.Duration;
import java.util.HexFormat;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.deviceidentity.qos2probe.mqtt.BrokerAddress;
import io.deviceidentity.qos2probe.probe.ProbeRun;
import io.deviceidentity.qos2probe.probe.ProbeSettings;
import io.deviceidentity.qos2probe.probe.ReconnectHook;
import io.deviceidentity.qos2probe.report.ProbeSummary;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/**
 * The probe's command line. Secrets never appear as arguments (a pod's args are readable by anyone who can read
 * the pod): passwords and the registration token are read from environment variables named here.
 * Exit codes: 0 every message exactly once and every auth check held; 1 otherwise; 2 the run could not be made.
 */
@Command(name = "qos2-probe", mixinStandardHelpOptions = true, sortOptions = false, version = "qos2-probe 0.1",
        description = "Publishes QoS 2 messages to broker node A, drops the connection after PUBREC, reconnects to "
                + "node B with the same client id and sends PUBREL there; a QoS 2 subscriber tells whether each "
                + "message arrived exactly once. Prints a JSON summary.")
public final class ProbeCommand implements Callable<Integer> {

    @Spec
    picocli.CommandLine.Model.CommandSpec spec;

    @Option(names = "--broker-a", required = true, paramLabel = "HOST:PORT",
            description = "Node A: each message is published and PUBREC'd here.")
    String brokerA;

    @Option(names = "--broker-b", paramLabel = "HOST:PORT",
            description = "Node B: the publisher reconnects here and sends PUBREL (default: --broker-a).")
    String brokerB;

    @Option(names = "--subscriber-broker", paramLabel = "HOST:PORT",
            description = "Where the subscriber keeps its persistent session (default: --broker-a).")
    String subscriberBroker;

    @Option(names = "--ca-file", paramLabel = "FILE",
            description = "MQTT over TLS (the chart's 8883): every broker's certificate must chain to this CA (PEM) "
                    + "and name the host dialled, as a device checks it (default: plain MQTT).")
    Path caFile;

    @Option(names = "--messages", defaultValue = "20", description = "Messages to probe (default: ${DEFAULT-VALUE}).")
    int messages;

    @Option(names = "--client-id-prefix", defaultValue = "qos2-probe-",
            description = "Client ids are PREFIX+RUN-pub, -sub (default: ${DEFAULT-VALUE}).")
    String clientIdPrefix;

    @Option(names = "--run-id", description = "Names this run's client ids, topic and payloads (default: random).")
    String runId;

    @Option(names = "--password-env", paramLabel = "VAR",
            description = "Environment variable holding the devices' password when the probe does not register "
                    + "them (default: no password).")
    String passwordEnv;

    @Option(names = "--register-url", paramLabel = "URL",
            description = "registration-service's /v1/devices: register the probe's devices with random passwords "
                    + "before the run and revoke them after it.")
    URI registerUrl;

    @Option(names = "--register-ca-file", paramLabel = "FILE",
            description = "With an https:// --register-url: registration-service's certificate must chain to a CA "
                    + "of this PEM bundle (only these are trusted) and name the URL's host (default: the JVM's trust "
                    + "store).")
    Path registerCaFile;

    @Option(names = "--registration-token-env", defaultValue = "REGISTRATION_TOKENS", paramLabel = "VAR",
            description = "Environment variable with the bearer token: the first entry of a comma-separated list of "
                    + "<id>:<scopes>:<token>, as in the chart's Secret, or a bare token (default: ${DEFAULT-VALUE}). "
                    + "It needs the scopes write and superuser: the subscriber's rule devices/+/... reads every "
                    + "publisher's topic, beyond its own.")
    String registrationTokenEnv;

    @Option(names = "--keep-devices", description = "Do not revoke the registered devices afterwards.")
    boolean keepDevices;

    @Option(names = "--auth-checks", description = "Also check wrong password (MQTT 5 and 3.1.1), valid connect "
            + "and a publish outside the device's ACL.")
    boolean authChecks;

    @Option(names = "--session-expiry", defaultValue = "300s", converter = Durations.class,
            description = "MQTT 5 Session Expiry Interval of both clients (default: ${DEFAULT-VALUE}).")
    Duration sessionExpiry;

    @Option(names = "--timeout", defaultValue = "10s", converter = Durations.class,
            description = "Longest wait for one packet (CONNACK, PUBREC, PUBCOMP, SUBACK) (default: ${DEFAULT-VALUE}).")
    Duration timeout;

    @Option(names = "--reconnect-timeout", defaultValue = "30s", converter = Durations.class,
            description = "How long the reconnect to node B may keep trying (refused TCP, CONNACK 0x89) "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration reconnectTimeout;

    @Option(names = "--delivery-timeout", defaultValue = "10s", converter = Durations.class,
            description = "After the last message, how long to wait for deliveries still missing "
                    + "(default: ${DEFAULT-VALUE}).")
    Duration deliveryTimeout;

    @Option(names = "--duplicate-window", defaultValue = "2s", converter = Durations.class,
            description = "Then how long to watch for late second copies (default: ${DEFAULT-VALUE}).")
    Duration duplicateWindow;

    @Option(names = "--out", paramLabel = "FILE", description = "Also write the JSON summary to FILE.")
    Path out;

    @Option(names = "--before-reconnect", paramLabel = "COMMAND",
            description = "Run COMMAND (sh -c) after each drop, before the reconnect to node B, e.g. restart the "
                    + "broker to see what a node without the session answers. A failing command ends the run.")
    String beforeReconnect;

    @Override
    public Integer call() throws Exception {
        ProbeSettings settings = settings();
        ProbeSummary summary;
        try {
            ReconnectHook hook = beforeReconnect == null ? ReconnectHook.NONE : shellHook(beforeReconnect);
            summary = new ProbeRun(settings, hook, System.err).execute();
        } catch (Exception e) {
            System.err.println("qos2-probe: the run could not be made: " + e.getMessage());
            return 2;
        }
        String json = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT)
                .writeValueAsString(summary.json());
        System.out.println(json);
        if (out != null) {
            if (out.toAbsolutePath().getParent() != null) {
                Files.createDirectories(out.toAbsolutePath().getParent());
            }
            Files.writeString(out, json + "\n");
        }
        return summary.ok() ? 0 : 1;
    }

    /** The run these options describe (the command's whole parsing and validation, without running anything). */
    public ProbeSettings settings() {
        if (messages < 1 || messages > 60000) {
            throw new ParameterException(spec.commandLine(), "--messages must be 1..60000");
        }
        BrokerAddress a = address(brokerA, "--broker-a");
        BrokerAddress b = brokerB == null ? a : address(brokerB, "--broker-b");
        BrokerAddress sub = subscriberBroker == null ? a : address(subscriberBroker, "--subscriber-broker");
        String run = runId != null ? runId : HexFormat.of().formatHex(new SecureRandom().generateSeed(4));
        if (!(clientIdPrefix + run).matches("[A-Za-z0-9][A-Za-z0-9._:@-]*")) {
            // The registration service's client-id rule, and no topic syntax: the ids go into topics.
            throw new ParameterException(spec.commandLine(), "--client-id-prefix and --run-id: letters, digits, "
                    + ". _ : @ - only, starting with a letter or digit");
        }
        byte[] password = null;
        if (passwordEnv != null) {
            password = env(passwordEnv).getBytes(StandardCharsets.UTF_8);
        }
        String token = null;
        if (registerUrl != null) {
            token = firstToken(env(registrationTokenEnv));
        }
        if (caFile != null && !Files.isReadable(caFile)) {
            throw new ParameterException(spec.commandLine(), "--ca-file: cannot read " + caFile);
        }
        if (registerCaFile != null) {
            if (registerUrl == null || !"https".equalsIgnoreCase(registerUrl.getScheme())) {
                throw new ParameterException(spec.commandLine(), "--register-ca-file is the CA an https:// "
                        + "--register-url is checked against: the URL is " + (registerUrl == null ? "not given"
                        : registerUrl.getScheme() + "://"));
            }
            if (!Files.isReadable(registerCaFile)) {
                throw new ParameterException(spec.commandLine(), "--register-ca-file: cannot read " + registerCaFile);
            }
        }
        return new ProbeSettings(a, b, sub, messages, clientIdPrefix, run, password, sessionExpiry, timeout,
                reconnectTimeout, deliveryTimeout, duplicateWindow, authChecks, registerUrl, token, !keepDevices, caFile,
                registerCaFile);
    }

    /**
     * The token of the first entry of a REGISTRATION_TOKENS value: {@code <id>:<scopes>:<token>} (everything after the
     * second colon), or a bare token (the format before token ids).
     */
    static String firstToken(String tokens) {
        String first = tokens.split(",")[0].trim();
        String[] parts = first.split(":", 3);
        return parts.length == 3 ? parts[2].trim() : first;
    }

    /** --before-reconnect as a hook. */
    private static ReconnectHook shellHook(String command) {
        return index -> {
            // Its output joins the progress lines on stderr; stdout stays the JSON summary's.
            Process process = new ProcessBuilder("sh", "-c", command).redirectErrorStream(true).start();
            process.getInputStream().transferTo(System.err);
            if (!process.waitFor(120, java.util.concurrent.TimeUnit.SECONDS)) {
                process.destroyForcibly();
                throw new IllegalStateException("--before-reconnect did not finish within 120 s");
            }
            if (process.exitValue() != 0) {
                throw new IllegalStateException("--before-reconnect exited with " + process.exitValue());
            }
        };
    }

    private BrokerAddress address(String value, String option) {
        try {
            return BrokerAddress.parse(value);
        } catch (IllegalArgumentException e) {
            throw new ParameterException(spec.commandLine(), option + ": " + e.getMessage());
        }
    }

    private String env(String name) {
        String value = System.getenv(name);
        if (value == null || value.isEmpty()) {
            throw new ParameterException(spec.commandLine(), "environment variable " + name + " is not set");
        }
        return value;
    }
}
