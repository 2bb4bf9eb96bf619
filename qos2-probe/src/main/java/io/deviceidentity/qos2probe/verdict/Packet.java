package io.deviceidentity.qos2probe.verdict;

/**
 * One control packet as the probe saw it, stripped to what the verdicts need. The live clients turn Netty's
 * messages into these and the unit tests write them by hand, so both feed the same decision code.
 *
 * @param type           which packet; {@link Type#CLOSED} stands for the TCP connection going away
 * @param packetId       the packet identifier, 0 where the packet has none
 * @param reasonCode     the MQTT 5 reason code (CONNACK return code for 3.1.1), 0 when the packet carries none
 * @param sessionPresent CONNACK's session-present flag
 * @param qos            PUBLISH's QoS
 * @param dup            PUBLISH's DUP flag
 * @param payload        PUBLISH's payload as text (the probe's payloads are ASCII ids), else {@code null}
 */
public record Packet(Type type, int packetId, int reasonCode, boolean sessionPresent, int qos, boolean dup,
        String payload) {

    public enum Type { CONNACK, PUBLISH, PUBACK, PUBREC, PUBREL, PUBCOMP, SUBACK, DISCONNECT, CLOSED, OTHER }

    public static Packet connack(int reasonCode, boolean sessionPresent) {
        return new Packet(Type.CONNACK, 0, reasonCode, sessionPresent, 0, false, null);
    }

    public static Packet publish(int packetId, int qos, boolean dup, String payload) {
        return new Packet(Type.PUBLISH, packetId, 0, false, qos, dup, payload);
    }

    public static Packet reply(Type type, int packetId, int reasonCode) {
        return new Packet(type, packetId, reasonCode, false, 0, false, null);
    }

    public static Packet closed() {
        return new Packet(Type.CLOSED, 0, 0, false, 0, false, null);
    }

    /** A broker DISCONNECT (MQTT 5) with its reason code. */
    public static Packet disconnect(int reasonCode) {
        return new Packet(Type.DISCONNECT, 0, reasonCode, false, 0, false, null);
    }

    /** The connection is over: the broker closed it or told us it will. */
    public boolean endsConnection() {
        return type == Type.CLOSED || type == Type.DISCONNECT;
    }

    @Override
    public String toString() {
        return switch (type) {
            case CONNACK -> "CONNACK " + ReasonCodes.hex(reasonCode) + (sessionPresent ? " session-present" : "");
            case PUBLISH -> "PUBLISH id=" + packetId + " qos=" + qos + (dup ? " dup" : "") + " " + payload;
            case CLOSED -> "TCP closed";
            case DISCONNECT -> "DISCONNECT " + ReasonCodes.hex(reasonCode);
            default -> type + " id=" + packetId + " " + ReasonCodes.hex(reasonCode);
        };
    }
}
