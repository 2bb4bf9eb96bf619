package io.deviceidentity.qos2probe.probe;

import java.time.Duration;

import io.deviceidentity.qos2probe.mqtt.BrokerAddress;
import io.deviceidentity.qos2probe.mqtt.ConnectSpec;
import io.deviceidentity.qos2probe.mqtt.MqttLink;
import io.deviceidentity.qos2probe.mqtt.MqttLinks;
import io.deviceidentity.qos2probe.verdict.Packet;

/**
 * Removing what an earlier run left under a client id: CONNECT with clean_start=true and session expiry 0, then
 * DISCONNECT. The probe's real connections then all use clean_start=false. Not simply clean_start=true on the first
 * real connect: Mosquitto never persists a session that began with clean_start=true, whatever its expiry
 * interval (src/persist_write.c, {@code context->clean_start == false}), so a restart would lose it.
 */
final class Sessions {

    private Sessions() {
    }

    /** Null when done, else what went wrong. */
    static String reset(MqttLinks links, BrokerAddress broker, ConnectSpec spec, Duration timeout)
            throws InterruptedException {
        MqttLink link;
        try {
            link = links.open(broker, timeout, spec.keepAliveSeconds(), null);
        } catch (MqttLink.LinkException e) {
            return e.getMessage();
        }
        ConnectSpec clean = new ConnectSpec(spec.clientId(), spec.username(), spec.password(), spec.version(), true,
                0, spec.keepAliveSeconds());
        Packet connack = link.connect(clean, timeout);
        if (connack == null || connack.type() != Packet.Type.CONNACK || connack.reasonCode() != 0) {
            link.drop();
            return "session reset on " + broker + ": " + (connack == null ? "no CONNACK" : connack);
        }
        link.disconnect();
        return null;
    }
}
