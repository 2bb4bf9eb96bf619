package io.deviceidentity.qos2probe.verdict;

import java.util.ArrayList;
import java.util.List;

/**
 * The publisher's side of one probe message, as a state machine that also says what to do next:
 *
 * <pre>
 *   PUBLISH p (QoS 2) to node A -> PUBREC p -> drop TCP (no PUBREL) -> CONNECT to node B (clean_start=false)
 *   -> CONNACK (0x89: connect again) -> PUBREL p -> PUBCOMP p
 *        0x00..0x7F: done (a 0x00 on a session the broker just said it did not have is a faked PUBCOMP)
 *        0x92:       the broker lost p: PUBLISH again (new packet id, same payload) -> PUBREC -> PUBREL -> PUBCOMP
 * </pre>
 *
 * The live {@code Publisher} does the I/O and feeds every packet in here; the unit tests feed recorded sequences.
 * Keeping the decisions here means the republish rule is tested without a broker that answers 0x92.
 */
public final class PublisherTranscript {

    /** What the publisher must do next. */
    public enum Step { PUBLISH, AWAIT, DROP, RECONNECT, PUBREL, REPUBLISH, DONE, FAILED }

    private enum Phase { START, AWAIT_PUBREC, DROP, RECONNECT, PUBREL, AWAIT_PUBCOMP, REPUBLISH, AWAIT_PUBREC_AGAIN,
        PUBREL_AGAIN, AWAIT_PUBCOMP_AGAIN, DONE, FAILED }

    private final String payload;
    private final List<String> log = new ArrayList<>();
    private Phase phase = Phase.START;
    private int packetId;
    private Integer pubrecReason;
    private Boolean sessionPresent;
    private Integer pubcompReason;
    private boolean republished;
    private Integer republishPubcompReason;
    private int busyRetries;
    private String error;

    public PublisherTranscript(String payload) {
        this.payload = payload;
    }

    public Step next() {
        return switch (phase) {
            case START -> Step.PUBLISH;
            case AWAIT_PUBREC, AWAIT_PUBCOMP, AWAIT_PUBREC_AGAIN, AWAIT_PUBCOMP_AGAIN -> Step.AWAIT;
            case DROP -> Step.DROP;
            case RECONNECT -> Step.RECONNECT;
            case PUBREL, PUBREL_AGAIN -> Step.PUBREL;
            case REPUBLISH -> Step.REPUBLISH;
            case DONE -> Step.DONE;
            case FAILED -> Step.FAILED;
        };
    }

    /** The QoS 2 PUBLISH went out (first time or the republish) with this packet id. */
    public void published(int id) {
        log.add((phase == Phase.REPUBLISH ? "republish " : "") + "PUBLISH id=" + id);
        packetId = id;
        phase = phase == Phase.REPUBLISH ? Phase.AWAIT_PUBREC_AGAIN : Phase.AWAIT_PUBREC;
    }

    /** The TCP connection to node A was closed by us, PUBREL unsent. */
    public void dropped() {
        log.add("drop TCP");
        phase = Phase.RECONNECT;
    }

    /** PUBREL for the current packet id went out. */
    public void released() {
        log.add("PUBREL id=" + packetId);
        phase = phase == Phase.PUBREL_AGAIN ? Phase.AWAIT_PUBCOMP_AGAIN : Phase.AWAIT_PUBCOMP;
    }

    /** A step did not complete in time (or the connection failed): the message's flow ends here. */
    public void failed(String why) {
        log.add("failed: " + why);
        fail(why);
    }

    /** A packet from the broker. Packets this phase does not wait for are logged and otherwise ignored. */
    public void received(Packet packet) {
        log.add(packet.toString());
        if (phase == Phase.RECONNECT && packet.type() == Packet.Type.CONNACK) {
            onReconnectAck(packet);
            return;
        }
        if (packet.endsConnection() && phase != Phase.DONE && phase != Phase.FAILED) {
            fail("connection closed while " + phase.name().toLowerCase().replace('_', ' '));
            return;
        }
        boolean forUs = packet.packetId() == packetId;
        switch (phase) {
            case AWAIT_PUBREC, AWAIT_PUBREC_AGAIN -> {
                if (packet.type() == Packet.Type.PUBREC && forUs) {
                    if (phase == Phase.AWAIT_PUBREC) {
                        pubrecReason = packet.reasonCode();
                    }
                    if (ReasonCodes.isFailure(packet.reasonCode())) {
                        fail("PUBREC " + ReasonCodes.hex(packet.reasonCode()));
                    } else {
                        phase = phase == Phase.AWAIT_PUBREC ? Phase.DROP : Phase.PUBREL_AGAIN;
                    }
                }
            }
            case AWAIT_PUBCOMP -> {
                if (packet.type() == Packet.Type.PUBCOMP && forUs) {
                    pubcompReason = packet.reasonCode();
                    if (packet.reasonCode() == ReasonCodes.PACKET_IDENTIFIER_NOT_FOUND) {
                        // The broker has no state for p, so it cannot have completed the message: send it again.
                        republished = true;
                        phase = Phase.REPUBLISH;
                    } else if (ReasonCodes.isFailure(packet.reasonCode())) {
                        fail("PUBCOMP " + ReasonCodes.hex(packet.reasonCode()));
                    } else {
                        phase = Phase.DONE;
                    }
                }
            }
            case AWAIT_PUBCOMP_AGAIN -> {
                if (packet.type() == Packet.Type.PUBCOMP && forUs) {
                    republishPubcompReason = packet.reasonCode();
                    if (ReasonCodes.isFailure(packet.reasonCode())) {
                        fail("PUBCOMP after republish " + ReasonCodes.hex(packet.reasonCode()));
                    } else {
                        phase = Phase.DONE;
                    }
                }
            }
            default -> {
                // Nothing awaited: a stray packet stays in the log only.
            }
        }
    }

    private void onReconnectAck(Packet connack) {
        if (connack.reasonCode() == ReasonCodes.SERVER_BUSY) {
            // EMQX while the client id's lock is held (the old channel is still being taken over): connect again.
            busyRetries++;
            return;
        }
        if (ReasonCodes.isFailure(connack.reasonCode()) || connack.reasonCode() != 0) {
            fail("reconnect refused: CONNACK " + ReasonCodes.hex(connack.reasonCode()));
            return;
        }
        sessionPresent = connack.sessionPresent();
        // Even without a session the PUBREL goes out: whether the broker then fakes success is what is checked.
        phase = Phase.PUBREL;
    }

    private void fail(String why) {
        if (error == null) {
            error = why;
        }
        phase = Phase.FAILED;
    }

    /**
     * A PUBCOMP with a success code for a packet id in a session the broker had just said was new (CONNACK session
     * present 0): it had no state for the id and claimed completion anyway, which is the one thing a broker must
     * not do.
     */
    public boolean fakedPubcomp() {
        return Boolean.FALSE.equals(sessionPresent) && pubcompReason != null
                && !ReasonCodes.isFailure(pubcompReason);
    }

    public String payload() {
        return payload;
    }

    public Integer pubrecReason() {
        return pubrecReason;
    }

    public Boolean sessionPresent() {
        return sessionPresent;
    }

    public Integer pubcompReason() {
        return pubcompReason;
    }

    public boolean republished() {
        return republished;
    }

    public Integer republishPubcompReason() {
        return republishPubcompReason;
    }

    public int busyRetries() {
        return busyRetries;
    }

    public String error() {
        return error;
    }

    public int packetId() {
        return packetId;
    }

    public List<String> log() {
        return List.copyOf(log);
    }
}
