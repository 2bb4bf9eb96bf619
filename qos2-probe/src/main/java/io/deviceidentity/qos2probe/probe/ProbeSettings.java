package io.deviceidentity.qos2probe.probe;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;

import io.deviceidentity.qos2probe.mqtt.BrokerAddress;

/**
 * One probe run, as the command line (or a test) describes it.
 *
 * @param nodeA            where each message is published and PUBREC'd
 * @param nodeB            where the publisher reconnects and sends PUBREL (may equal nodeA)
 * @param subscriberNode   where the subscriber keeps its persistent session
 * @param clientIdPrefix   client ids are prefix + runId + "-pub-" + message index / "-sub" / "-other"
 * @param password         the devices' password when they are not registered by the probe (null: none sent)
 * @param registrationUrl  registration-service's /v1/devices: register (random passwords) and revoke; null: don't
 * @param registrationToken bearer token for registrationUrl
 * @param caFile           MQTT over TLS, the brokers verified against this CA (PEM) and their host names; null: plain
 * @param registrationCaFile the CA (PEM) an https registrationUrl's certificate must chain to; null: the JVM's trust
 *                         store
 */
public record ProbeSettings(BrokerAddress nodeA, BrokerAddress nodeB, BrokerAddress subscriberNode, int messages,
        String clientIdPrefix, String runId, byte[] password, Duration sessionExpiry, Duration timeout,
        Duration reconnectTimeout, Duration deliveryTimeout, Duration duplicateWindow, boolean authChecks,
        URI registrationUrl, String registrationToken, boolean revoke, Path caFile, Path registrationCaFile) {

    /** Registering (if at all) against the JVM's trust store. */
    public ProbeSettings(BrokerAddress nodeA, BrokerAddress nodeB, BrokerAddress subscriberNode, int messages,
            String clientIdPrefix, String runId, byte[] password, Duration sessionExpiry, Duration timeout,
            Duration reconnectTimeout, Duration deliveryTimeout, Duration duplicateWindow, boolean authChecks,
            URI registrationUrl, String registrationToken, boolean revoke, Path caFile) {
        this(nodeA, nodeB, subscriberNode, messages, clientIdPrefix, runId, password, sessionExpiry, timeout,
                reconnectTimeout, deliveryTimeout, duplicateWindow, authChecks, registrationUrl, registrationToken,
                revoke, caFile, null);
    }

    /**
     * One publisher device per message: a device goes through the boundary case once, with three CONNECTs (session
     * reset, node A, node B). Reusing one client id for every message would run into auth-service's per-device
     * attempt limit (10 per minute by default), which is there against exactly such reconnect loops.
     */
    public String publisherId(int message) {
        return clientIdPrefix + runId + "-pub-" + message;
    }

    public String subscriberId() {
        return clientIdPrefix + runId + "-sub";
    }

    /** A client id the publisher's ACL does not cover: the auth checks publish under its subtree. */
    public String otherId() {
        return clientIdPrefix + runId + "-other";
    }

    /** Under the publisher's own subtree: inside auth-service's default ACL, devices/${clientid}/#. */
    public String topic(int message) {
        return "devices/" + publisherId(message) + "/qos2-probe/" + runId;
    }

    /** The subscriber's one filter: every publisher's topic, and the auth checks' denied topic too. */
    public String subscriptionFilter() {
        return "devices/+/qos2-probe/" + runId;
    }

    public String deniedTopic() {
        return "devices/" + otherId() + "/qos2-probe/" + runId;
    }

    @Override
    public String toString() {
        return "ProbeSettings[A=" + nodeA + ", B=" + nodeB + ", subscriber=" + subscriberNode + ", messages="
                + messages + ", run=" + runId + ", authChecks=" + authChecks + "]";
    }
}
