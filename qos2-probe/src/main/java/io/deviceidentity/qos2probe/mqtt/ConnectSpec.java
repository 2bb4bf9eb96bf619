package io.deviceidentity.qos2probe.mqtt;

import java.util.Arrays;

import io.netty.handler.codec.mqtt.MqttVersion;

/**
 * One CONNECT. The password is bytes so that it never becomes part of a log line by accident; {@link #toString}
 * leaves it out.
 *
 * @param sessionExpirySeconds MQTT 5 Session Expiry Interval; 0 ends the session with the connection
 */
public record ConnectSpec(String clientId, String username, byte[] password, MqttVersion version, boolean cleanStart,
        long sessionExpirySeconds, int keepAliveSeconds) {

    public ConnectSpec withCleanStart(boolean clean) {
        return new ConnectSpec(clientId, username, password, version, clean, sessionExpirySeconds, keepAliveSeconds);
    }

    public ConnectSpec withPassword(byte[] other) {
        return new ConnectSpec(clientId, username, other, version, cleanStart, sessionExpirySeconds, keepAliveSeconds);
    }

    public ConnectSpec withVersion(MqttVersion other) {
        return new ConnectSpec(clientId, username, password, other, cleanStart, sessionExpirySeconds, keepAliveSeconds);
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof ConnectSpec c && c.clientId.equals(clientId) && Arrays.equals(c.password, password);
    }

    @Override
    public int hashCode() {
        return clientId.hashCode();
    }

    @Override
    public String toString() {
        return "ConnectSpec[clientId=" + clientId + ", username=" + username + ", version=" + version
                + ", cleanStart=" + cleanStart + ", sessionExpiry=" + sessionExpirySeconds + "s]";
    }
}
