package io.deviceidentity.qos2probe.verdict;

import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.Optional;
import java.util.Set;

/**
 * The subscriber's side of QoS 2 (MQTT 5 §4.3.3, receiver): a PUBLISH whose packet id is still waiting for its
 * PUBREL is a retransmission of the same message and is not delivered again; PUBREL frees the id. So a payload the
 * application sees twice was sent twice by the broker as two messages: that is a real duplicate, not a protocol
 * retry. The ids waiting for PUBREL are session state: they survive a reconnect with session present and are
 * dropped when the broker says the session is new.
 *
 * <p>Not thread-safe: the subscriber calls it from its connection's event loop only.
 */
public final class Qos2Receiver {

    private final Set<Integer> awaitingRel = new HashSet<>();
    private final Map<String, Integer> deliveries = new LinkedHashMap<>();
    private int retransmissions;

    /** A packet from the broker; returns the acknowledgement to send back, if any. */
    public Optional<Packet> onPacket(Packet packet) {
        switch (packet.type()) {
            case CONNACK -> {
                if (!packet.sessionPresent()) {
                    // MQTT 5 §3.2.2.1.1: a client with session state that gets session present 0 discards it.
                    awaitingRel.clear();
                }
                return Optional.empty();
            }
            case PUBLISH -> {
                return onPublish(packet);
            }
            case PUBREL -> {
                // An id we do not know (a PUBREL repeated after a reconnect) still gets its PUBCOMP, with the honest
                // 0x92: the rule the probe checks brokers against holds for the probe too.
                int reason = awaitingRel.remove(packet.packetId()) ? ReasonCodes.SUCCESS
                        : ReasonCodes.PACKET_IDENTIFIER_NOT_FOUND;
                return Optional.of(Packet.reply(Packet.Type.PUBCOMP, packet.packetId(), reason));
            }
            default -> {
                return Optional.empty();
            }
        }
    }

    private Optional<Packet> onPublish(Packet publish) {
        switch (publish.qos()) {
            case 2 -> {
                if (awaitingRel.add(publish.packetId())) {
                    deliver(publish.payload());
                } else {
                    retransmissions++;
                }
                return Optional.of(Packet.reply(Packet.Type.PUBREC, publish.packetId(), ReasonCodes.SUCCESS));
            }
            case 1 -> {
                deliver(publish.payload());
                return Optional.of(Packet.reply(Packet.Type.PUBACK, publish.packetId(), ReasonCodes.SUCCESS));
            }
            default -> {
                deliver(publish.payload());
                return Optional.empty();
            }
        }
    }

    private void deliver(String payload) {
        deliveries.merge(payload, 1, Integer::sum);
    }

    /** How often the application got this payload. */
    public int deliveries(String payload) {
        return deliveries.getOrDefault(payload, 0);
    }

    /** Every payload delivered, with its count, in first-delivery order. */
    public Map<String, Integer> allDeliveries() {
        return Map.copyOf(deliveries);
    }

    /** PUBLISH packets that repeated an id still waiting for PUBREL (protocol retries, not delivered again). */
    public int retransmissions() {
        return retransmissions;
    }
}
