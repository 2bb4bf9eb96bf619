package io.deviceidentity.qos2probe.mqtt;

import java.nio.charset.StandardCharsets;

import io.deviceidentity.qos2probe.verdict.Packet;
import io.netty.handler.codec.mqtt.MqttConnAckMessage;
import io.netty.handler.codec.mqtt.MqttFixedHeader;
import io.netty.handler.codec.mqtt.MqttMessage;
import io.netty.handler.codec.mqtt.MqttMessageIdVariableHeader;
import io.netty.handler.codec.mqtt.MqttMessageType;
import io.netty.handler.codec.mqtt.MqttProperties;
import io.netty.handler.codec.mqtt.MqttPubReplyMessageVariableHeader;
import io.netty.handler.codec.mqtt.MqttPublishMessage;
import io.netty.handler.codec.mqtt.MqttQoS;
import io.netty.handler.codec.mqtt.MqttReasonCodeAndPropertiesVariableHeader;
import io.netty.handler.codec.mqtt.MqttSubAckMessage;

/** Between Netty's MQTT messages and the probe's {@link Packet}s. */
public final class Packets {

    private Packets() {
    }

    /** What the broker sent, reduced to a Packet (a PUBLISH's payload is copied out; the caller releases it). */
    public static Packet of(MqttMessage message) {
        if (message.decoderResult().isFailure()) {
            return new Packet(Packet.Type.OTHER, 0, 0, false, 0, false,
                    "undecodable: " + message.decoderResult().cause());
        }
        MqttFixedHeader header = message.fixedHeader();
        return switch (header.messageType()) {
            case CONNACK -> {
                var variable = ((MqttConnAckMessage) message).variableHeader();
                yield Packet.connack(variable.connectReturnCode().byteValue() & 0xFF, variable.isSessionPresent());
            }
            case PUBLISH -> {
                MqttPublishMessage publish = (MqttPublishMessage) message;
                yield Packet.publish(publish.variableHeader().packetId(), header.qosLevel().value(), header.isDup(),
                        publish.payload().toString(StandardCharsets.UTF_8));
            }
            case PUBACK -> reply(Packet.Type.PUBACK, message);
            case PUBREC -> reply(Packet.Type.PUBREC, message);
            case PUBREL -> reply(Packet.Type.PUBREL, message);
            case PUBCOMP -> reply(Packet.Type.PUBCOMP, message);
            case SUBACK -> {
                MqttSubAckMessage suback = (MqttSubAckMessage) message;
                int code = suback.payload().reasonCodes().isEmpty() ? 0x80 : suback.payload().reasonCodes().get(0);
                yield Packet.reply(Packet.Type.SUBACK, suback.variableHeader().messageId(), code);
            }
            case DISCONNECT -> Packet.disconnect(
                    message.variableHeader() instanceof MqttReasonCodeAndPropertiesVariableHeader v
                            ? v.reasonCode() & 0xFF : 0);
            default -> new Packet(Packet.Type.OTHER, 0, 0, false, 0, false, header.messageType().name());
        };
    }

    private static Packet reply(Packet.Type type, MqttMessage message) {
        Object variable = message.variableHeader();
        int id = variable instanceof MqttMessageIdVariableHeader v ? v.messageId() : 0;
        // MQTT 5 omits the reason code when it is 0x00 (Netty then gives the plain id header); 3.1.1 has none.
        int reason = variable instanceof MqttPubReplyMessageVariableHeader v ? v.reasonCode() & 0xFF : 0;
        return Packet.reply(type, id, reason);
    }

    /** PUBACK, PUBREC, PUBREL or PUBCOMP for a packet id, with a reason code (written only by MQTT 5). */
    public static MqttMessage reply(Packet packet) {
        MqttMessageType type = switch (packet.type()) {
            case PUBACK -> MqttMessageType.PUBACK;
            case PUBREC -> MqttMessageType.PUBREC;
            case PUBREL -> MqttMessageType.PUBREL;
            case PUBCOMP -> MqttMessageType.PUBCOMP;
            default -> throw new IllegalArgumentException("not an acknowledgement: " + packet);
        };
        // PUBREL's fixed-header flags are 0010 (MQTT 5 §3.6.1): Netty writes them from the QoS field.
        MqttQoS flags = type == MqttMessageType.PUBREL ? MqttQoS.AT_LEAST_ONCE : MqttQoS.AT_MOST_ONCE;
        return new MqttMessage(new MqttFixedHeader(type, false, flags, false, 0),
                new MqttPubReplyMessageVariableHeader(packet.packetId(), (byte) packet.reasonCode(),
                        MqttProperties.NO_PROPERTIES));
    }
}
