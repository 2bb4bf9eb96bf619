package io.deviceidentity.qos2probe.broker;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;
import org.junit.jupiter.api.Timeout;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.SerializationFeature;

import io.deviceidentity.qos2probe.Qos2Probe;
import io.deviceidentity.qos2probe.mqtt.BrokerAddress;
import io.deviceidentity.qos2probe.probe.ProbeRun;
import io.deviceidentity.qos2probe.probe.ProbeSettings;
import io.deviceidentity.qos2probe.probe.ReconnectHook;
import io.deviceidentity.qos2probe.report.ProbeSummary;
import io.deviceidentity.testsupport.tls.LocalCa;

/**
 * The probe against a real broker (Mosquitto 2.0.11 from Debian 12), one loopback port per test (18830-18839).
 *
 * <p>What Mosquitto does, read in its source (lib/handle_pubrel.c, src/handle_publish.c, src/database.c at
 * v2.0.11, unchanged on develop): it keeps an incoming QoS 2 message until PUBREL and only then hands it to the
 * subscribers; for a PUBREL whose packet id it does not know it still answers PUBCOMP with reason 0x00 ("this
 * could be due to a repeated PUBREL after a client has reconnected"), never 0x92. So a Mosquitto restarted
 * without persistence loses the message and claims success: the probe must call that lost and faked.
 */
@Timeout(120)
class MosquittoProbeTest {

    private static final ObjectMapper JSON = new ObjectMapper().enable(SerializationFeature.INDENT_OUTPUT);

    /** Under target/, not @TempDir: Mosquitto runs as its own user (the test as root), and the logs stay. */
    Path dir;

    @BeforeEach
    void brokerDirectory(TestInfo test) throws Exception {
        dir = Files.createDirectories(Path.of("target", "mosquitto",
                test.getTestMethod().orElseThrow().getName() + "-" + System.currentTimeMillis())).toAbsolutePath();
    }

    @Test
    void reconnectToTheSameNodeKeepsTheQos2State() throws Exception {
        try (Mosquitto broker = Mosquitto.start(dir.resolve("broker"), 18830, false)) {
            Path out = dir.resolve("summary.json");
            int exit = Qos2Probe.execute("--broker-a=" + broker.address(), "--broker-b=" + broker.address(),
                    "--messages=5", "--duplicate-window=500ms", "--out=" + out);
            JsonNode summary = JSON.readTree(out.toFile());
            String why = summary.toPrettyString() + "\n" + broker.log();
            assertEquals(0, exit, why);
            assertEquals(5, summary.path("messages").asInt(), why);
            assertEquals(5, summary.path("exactly_once").asInt(), why);
            assertEquals(0, summary.path("duplicates").asInt(), why);
            assertEquals(0, summary.path("lost").asInt(), why);
            assertEquals(Map.of("0x00", 5), JSON.convertValue(summary.path("pubcomp_reasons"), Map.class), why);
            assertEquals(5, summary.path("session_present_on_reconnect").path("true").asInt(), why);
            assertEquals(0, summary.path("republished").asInt(), why);
            assertEquals(5, summary.path("takeover_ms").path("count").asInt(), why);
            assertTrue(summary.path("takeover_ms").has("p99"), why);
        }
    }

    @Test
    void aBrokerRestartedWithoutPersistenceFakesPubcompAndTheMessageIsLost() throws Exception {
        try (Mosquitto broker = Mosquitto.start(dir.resolve("broker"), 18831, false)) {
            // Through the command line, with the restart as its --before-reconnect command.
            Path out = dir.resolve("summary.json");
            int exit = Qos2Probe.execute("--broker-a=" + broker.address(), "--messages=2", "--run-id=nopersist",
                    "--duplicate-window=500ms", "--delivery-timeout=3s", "--out=" + out,
                    "--before-reconnect=" + broker.restartCommand(false));
            JsonNode json = JSON.readTree(out.toFile());
            String why = json.toPrettyString() + "\n" + broker.log();
            // The truth about Mosquitto: new session (session present 0), PUBREL p -> PUBCOMP 0x00, nothing delivered.
            assertEquals(1, exit, why);
            assertFalse(json.path("ok").asBoolean(), why);
            assertEquals(2, json.path("lost").asInt(), why);
            assertEquals(0, json.path("exactly_once").asInt(), why);
            assertEquals(2, json.path("session_present_on_reconnect").path("false").asInt(), why);
            assertEquals(Map.of("0x00", 2), JSON.convertValue(json.path("pubcomp_reasons"), Map.class), why);
            assertEquals(2, json.path("faked_pubcomp").asInt(), why);
            assertEquals(0, json.path("republished").asInt(), "Mosquitto never answers 0x92: " + why);
            assertTrue(broker.log().contains("Received PUBREL from qos2-probe-nopersist-pub-1 (Mid: 1)"), why);
        }
    }

    @Test
    void aBrokerRestartedWithPersistenceKeepsTheQos2State() throws Exception {
        try (Mosquitto broker = Mosquitto.start(dir.resolve("broker"), 18832, true)) {
            ProbeSummary summary = probe(broker, 2, index -> broker.restart(true), false);
            JsonNode json = JSON.valueToTree(summary.json());
            String why = json.toPrettyString() + "\n" + broker.log();
            assertTrue(summary.ok(), why);
            assertEquals(2, json.path("exactly_once").asInt(), why);
            assertEquals(2, json.path("session_present_on_reconnect").path("true").asInt(), why);
            assertEquals(Map.of("0x00", 2), JSON.convertValue(json.path("pubcomp_reasons"), Map.class), why);
            assertEquals(0, json.path("faked_pubcomp").asInt(), why);
        }
    }

    /**
     * The auth checks for real: a password file and an ACL file that give the publisher only devices/<its id>/#,
     * like auth-service's default rules; Mosquitto answers a wrong password with 0x87 / 5 and a denied publish
     * with PUBACK/PUBREC 0x87 (src/handle_connect.c, src/handle_publish.c), which is what EMQX does too.
     */
    @Test
    void authChecksHoldAgainstAPasswordFileAndAnAcl() throws Exception {
        Path brokerDir = dir.resolve("broker");
        Files.createDirectories(brokerDir);
        String run = "auth1";
        String sub = "qos2-probe-" + run + "-sub";
        Mosquitto.writePasswordFile(brokerDir, "qos2-probe-" + run + "-pub-0", "probe-password",
                "qos2-probe-" + run + "-pub-1", "probe-password", sub, "probe-password");
        // Like auth-service's default rules (publish devices/${clientid}/#) and the subscriber the probe registers.
        Files.writeString(brokerDir.resolve("acl"), String.join("\n",
                "pattern readwrite devices/%c/#", "user " + sub, "topic read devices/+/qos2-probe/" + run, ""));
        try (Mosquitto broker = Mosquitto.start(brokerDir, 18833, false, true)) {
            ProbeSettings settings = settings(broker, 2, run, true, "probe-password");
            ProbeSummary summary = new ProbeRun(settings, ReconnectHook.NONE, quiet()).execute();
            JsonNode json = JSON.valueToTree(summary.json());
            String why = json.toPrettyString() + "\n" + broker.log();
            assertTrue(summary.ok(), why);
            JsonNode checks = json.path("auth_checks").path("checks");
            assertEquals(List.of("wrong_password_mqtt5", "wrong_password_mqtt311", "valid_device_connects_mqtt5",
                            "publish_outside_acl_qos1", "publish_outside_acl_qos2", "denied_publish_not_delivered"),
                    checks.findValuesAsText("name"), why);
            assertEquals("CONNACK 0x87", checks.get(0).path("observed").asText(), why);
            assertEquals("CONNACK 0x05", checks.get(1).path("observed").asText(), why);
            assertEquals("PUBACK id=60000 0x87", checks.get(3).path("observed").asText(), why);
            assertEquals("PUBREC id=60001 0x87", checks.get(4).path("observed").asText(), why);
            assertEquals("0 delivered", checks.get(5).path("observed").asText(), why);
            assertFalse(json.toString().contains("probe-password"), "a password in the summary: " + why);
        }
    }

    @Test
    void anAuthCheckThatDoesNotHoldFailsTheRun() throws Exception {
        // An anonymous broker lets the wrong password in: the messages are fine, the exit code is not.
        try (Mosquitto broker = Mosquitto.start(dir.resolve("broker"), 18834, false)) {
            Path out = dir.resolve("summary.json");
            int exit = Qos2Probe.execute("--broker-a=" + broker.address(), "--messages=1", "--auth-checks",
                    "--duplicate-window=500ms", "--out=" + out);
            JsonNode json = JSON.readTree(out.toFile());
            String why = json.toPrettyString();
            assertEquals(1, exit, why);
            assertEquals(1, json.path("exactly_once").asInt(), why);
            assertFalse(json.path("auth_checks").path("ok").asBoolean(), why);
            JsonNode wrongPassword = json.path("auth_checks").path("checks").get(0);
            assertEquals("wrong_password_mqtt5", wrongPassword.path("name").asText(), why);
            assertEquals("CONNACK 0x00", wrongPassword.path("observed").asText(), why);
            assertFalse(wrongPassword.path("ok").asBoolean(), why);
        }
    }

    @Test
    void overTlsTheProbeVerifiesTheBrokerAgainstTheCaItWasGiven() throws Exception {
        LocalCa ca = LocalCa.in(dir.resolve("ca"));
        try (Mosquitto broker = Mosquitto.startTls(dir.resolve("broker"), 18836, ca)) {
            Path out = dir.resolve("summary.json");
            int exit = Qos2Probe.execute("--broker-a=" + broker.address(), "--messages=2",
                    "--duplicate-window=500ms", "--ca-file=" + ca.caCertificate(), "--out=" + out);
            JsonNode json = JSON.readTree(out.toFile());
            assertEquals(0, exit, json.toPrettyString() + "\n" + broker.log());
            assertEquals(2, json.path("exactly_once").asInt(), json.toPrettyString());
        }
    }

    @Test
    void aBrokerWhoseCertificateIsNotFromThatCaNeverSeesAConnect() throws Exception {
        LocalCa brokers = LocalCa.in(dir.resolve("ca"));
        LocalCa another = LocalCa.in(dir.resolve("another-ca"));
        try (Mosquitto broker = Mosquitto.startTls(dir.resolve("broker"), 18837, brokers)) {
            int exit = Qos2Probe.execute("--broker-a=" + broker.address(), "--messages=1",
                    "--ca-file=" + another.caCertificate(), "--timeout=3s");
            assertNotEquals(0, exit);
            assertFalse(broker.log().contains("New client connected"), broker.log());
        }
    }

    private ProbeSummary probe(Mosquitto broker, int messages, ReconnectHook hook, boolean authChecks)
            throws Exception {
        return new ProbeRun(settings(broker, messages, "r" + System.nanoTime() % 100000, authChecks, null), hook,
                quiet()).execute();
    }

    private static ProbeSettings settings(Mosquitto broker, int messages, String run, boolean authChecks,
            String password) {
        BrokerAddress address = BrokerAddress.parse(broker.address());
        return new ProbeSettings(address, address, address, messages, "qos2-probe-", run,
                password == null ? null : password.getBytes(StandardCharsets.UTF_8), Duration.ofSeconds(300),
                Duration.ofSeconds(5), Duration.ofSeconds(20), Duration.ofSeconds(3), Duration.ofMillis(500),
                authChecks, null, null, false, null);
    }

    private static PrintStream quiet() {
        return new PrintStream(new ByteArrayOutputStream(), true, StandardCharsets.UTF_8);
    }
}
