package io.deviceidentity.qos2probe.probe;

import java.net.URI;
import java.time.Duration;

import io.deviceidentity.qos2probe.mqtt.BrokerAddress;

/**
 * One probe run, as the command line (or a test) describes it.
 *
 * @param nodeA            where each message is published and PUBREC'd
 * @param nodeB            where the publisher reconnects and sends PUBREL (may equal nodeA)
 * @param subscriberNode   where the subscriber keeps its persistent session
 * @param clientIdPrefix   client ids are prefix + runId + "-pub" / "-sub" / "-other"
 * @param password         the devices' password when they are not registered by the probe (null: none sent)
 * @param registrationUrl  registration-service's /v1/devices: register (random passwords) and revoke; null: don't
 * @param registrationToken bearer token for registrationUrl
 */
public record ProbeSettings(BrokerAddress nodeA, BrokerAddress nodeB, BrokerAddress subscriberNode, int messages,
        String clientIdPrefix, String runId, byte[] password, Duration sessionExpiry, Duration timeout,
        Duration reconnectTimeout, Duration deliveryTimeout, Duration duplicateWindow, boolean authChecks,
        URI registrationUrl, String registrationToken, boolean revoke) {

    public String publisherId() {
        return clientIdPrefix + runId + "-pub";
    }

    public String subscriberId() {
        return clientIdPrefix + runId + "-sub";
    }

    /** A client id the publisher's ACL does not cover: the auth checks publish under its subtree. */
    public String otherId() {
        return clientIdPrefix + runId + "-other";
    }

    public String topic() {
        return "devices/" + publisherId() + "/qos2-probe/" + runId;
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
