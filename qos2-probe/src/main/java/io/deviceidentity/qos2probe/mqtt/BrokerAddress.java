package io.deviceidentity.qos2probe.mqtt;

/** host:port of one broker node (in Kubernetes: a pod's name under the headless Service). */
public record BrokerAddress(String host, int port) {

    public static BrokerAddress parse(String text) {
        int colon = text.lastIndexOf(':');
        if (colon <= 0 || colon == text.length() - 1) {
            return new BrokerAddress(colon < 0 ? text : text.substring(0, Math.max(colon, 0)), 1883);
        }
        try {
            int port = Integer.parseInt(text.substring(colon + 1));
            if (port < 1 || port > 65535) {
                throw new IllegalArgumentException("port out of range in '" + text + "'");
            }
            return new BrokerAddress(text.substring(0, colon), port);
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("expected host:port, got '" + text + "'");
        }
    }

    @Override
    public String toString() {
        return host + ":" + port;
    }
}
