package io.deviceidentity.qos2probe.auth;

import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;

import io.deviceidentity.qos2probe.mqtt.BrokerAddress;
import io.deviceidentity.qos2probe.mqtt.ConnectSpec;
import io.deviceidentity.qos2probe.mqtt.MqttLink;
import io.deviceidentity.qos2probe.mqtt.MqttLinks;
import io.deviceidentity.qos2probe.verdict.Packet;
import io.deviceidentity.qos2probe.verdict.ReasonCodes;
import io.netty.handler.codec.mqtt.MqttVersion;

/**
 * The auth path seen from a device, through the broker's real chain (in the cluster: EMQX → auth-service →
 * PgBouncer → PostgreSQL): a wrong password gets CONNACK 0x87 on MQTT 5 and 5 on 3.1.1; the valid device connects;
 * a publish outside its ACL is refused, with PUBACK/PUBREC ≥ 0x80 (EMQX deny_action = ignore, the chart's) or by
 * the broker closing the connection (deny_action = disconnect). Each check says what it saw, never a password.
 */
public final class AuthChecks {

    private final MqttLinks links;
    private final Duration timeout;

    public AuthChecks(MqttLinks links, Duration timeout) {
        this.links = links;
        this.timeout = timeout;
    }

    /**
     * @param device       the valid device (its own password), MQTT 5
     * @param deniedTopic  a topic outside the device's ACL
     */
    public List<AuthCheck> run(BrokerAddress broker, ConnectSpec device, String deniedTopic, int packetIdBase)
            throws InterruptedException {
        List<AuthCheck> checks = new ArrayList<>();
        byte[] wrong = ("wrong-" + new String(device.password() == null ? new byte[0] : device.password(),
                StandardCharsets.UTF_8)).getBytes(StandardCharsets.UTF_8);
        ConnectSpec clean = device.withCleanStart(true);
        checks.add(connackCheck("wrong_password_mqtt5", broker, clean.withPassword(wrong),
                ReasonCodes.NOT_AUTHORIZED));
        checks.add(connackCheck("wrong_password_mqtt311", broker,
                clean.withPassword(wrong).withVersion(MqttVersion.MQTT_3_1_1), ReasonCodes.NOT_AUTHORIZED_V311));

        MqttLink link = open(broker);
        Packet connack = link == null ? null : link.connect(clean, timeout);
        boolean connected = connack != null && connack.type() == Packet.Type.CONNACK && connack.reasonCode() == 0;
        checks.add(new AuthCheck("valid_device_connects_mqtt5", "CONNACK 0x00", describe(connack, link), connected));
        if (!connected) {
            if (link != null) {
                link.drop();
            }
            return checks;
        }
        checks.add(deniedPublish("publish_outside_acl_qos1", link, deniedTopic, 1, packetIdBase, "PUBACK"));
        if (!link.isOpen()) {
            // deny_action = disconnect: a new connection for the QoS 2 check.
            link = open(broker);
            if (link == null || link.connect(clean, timeout) == null) {
                checks.add(new AuthCheck("publish_outside_acl_qos2", "PUBREC >= 0x80 or disconnect",
                        "could not reconnect for the check", false));
                return checks;
            }
        }
        checks.add(deniedPublish("publish_outside_acl_qos2", link, deniedTopic, 2, packetIdBase + 1, "PUBREC"));
        link.disconnect();
        return checks;
    }

    private AuthCheck connackCheck(String name, BrokerAddress broker, ConnectSpec spec, int expected)
            throws InterruptedException {
        MqttLink link = open(broker);
        Packet connack = link == null ? null : link.connect(spec, timeout);
        if (link != null) {
            link.drop();
        }
        boolean ok = connack != null && connack.type() == Packet.Type.CONNACK && connack.reasonCode() == expected;
        String shown = spec.version() == MqttVersion.MQTT_5 ? ReasonCodes.hex(expected) : Integer.toString(expected);
        return new AuthCheck(name, "CONNACK " + shown, describe(connack, link), ok);
    }

    private AuthCheck deniedPublish(String name, MqttLink link, String topic, int qos, int packetId, String ack)
            throws InterruptedException {
        link.publish(topic, qos, packetId, payload(packetId));
        Packet.Type type = qos == 1 ? Packet.Type.PUBACK : Packet.Type.PUBREC;
        Packet answer = link.await(p -> p.type() == type && p.packetId() == packetId, timeout);
        boolean ok = answer != null && (answer.endsConnection() || ReasonCodes.isFailure(answer.reasonCode()));
        String observed = answer == null ? "no " + ack + " within " + timeout.toMillis() + " ms" : answer.toString();
        return new AuthCheck(name, ack + " >= 0x80 or disconnect", observed, ok);
    }

    /** The payload of an ACL check's publish, by its packet id. */
    public static String payload(int packetId) {
        return "acl-check-" + packetId;
    }

    private MqttLink open(BrokerAddress broker) throws InterruptedException {
        try {
            return links.open(broker, timeout, 30, null);
        } catch (MqttLink.LinkException e) {
            return null;
        }
    }

    private String describe(Packet connack, MqttLink link) {
        if (link == null) {
            return "TCP connect failed";
        }
        return connack == null ? "no CONNACK within " + timeout.toMillis() + " ms" : connack.toString();
    }
}
