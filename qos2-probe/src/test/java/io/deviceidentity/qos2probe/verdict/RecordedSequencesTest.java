package io.deviceidentity.qos2probe.verdict;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deviceidentity.qos2probe.report.ProbeSummary;
import io.deviceidentity.qos2probe.verdict.Packet.Type;
import io.deviceidentity.qos2probe.verdict.PublisherTranscript.Step;

/**
 * The verdict logic on recorded packet sequences, no broker: the publisher's decisions (republish on 0x92 only,
 * faked PUBCOMP, busy reconnects, failures), the subscriber's QoS 2 de-duplication, and the summary built from
 * both. The sequences are what EMQX (takeover, and a node that lost the session), Mosquitto and a broken broker
 * send.
 */
class RecordedSequencesTest {

    private static final String M = "run/0";

    /** Plays the publisher's side: sends are method calls, receipts are packets, in recorded order. */
    private static PublisherTranscript publisher(Object... events) {
        PublisherTranscript t = new PublisherTranscript(M);
        for (Object event : events) {
            if (event instanceof Packet packet) {
                t.received(packet);
            } else if (event.equals("drop")) {
                t.dropped();
            } else if (event.equals("pubrel")) {
                t.released();
            } else if (event instanceof Integer id) {
                t.published(id);
            } else {
                throw new IllegalArgumentException(event.toString());
            }
        }
        return t;
    }

    private static Qos2Receiver subscriber(Packet... packets) {
        Qos2Receiver receiver = new Qos2Receiver();
        for (Packet packet : packets) {
            receiver.onPacket(packet);
        }
        return receiver;
    }

    private static Packet pubrec(int id, int reason) {
        return Packet.reply(Type.PUBREC, id, reason);
    }

    private static Packet pubcomp(int id, int reason) {
        return Packet.reply(Type.PUBCOMP, id, reason);
    }

    private static Packet pubrel(int id) {
        return Packet.reply(Type.PUBREL, id, 0);
    }

    @Test
    void takeoverCarriesTheStateSoPubcompSucceedsAndNothingIsRepublished() {
        // EMQX node B after takeover: session present, awaiting_rel has p.
        PublisherTranscript t = publisher(7, pubrec(7, 0), "drop", Packet.connack(0, true), "pubrel", pubcomp(7, 0));
        assertEquals(Step.DONE, t.next());
        assertFalse(t.republished());
        assertFalse(t.fakedPubcomp());
        assertEquals(0, t.pubcompReason());
        // EMQX delivers at PUBLISH time (before PUBREL): one delivery, the DUP retransmission is not a second one.
        Qos2Receiver sub = subscriber(Packet.publish(1, 2, false, M), Packet.publish(1, 2, true, M), pubrel(1));
        assertEquals(1, sub.deliveries(M));
        assertEquals(1, sub.retransmissions());
        assertEquals(Verdict.EXACTLY_ONCE, new MessageResult(t, sub.deliveries(M), 12.0).verdict());
    }

    @Test
    void packetIdNotFoundIsAnsweredWithARepublishThatCompletes() {
        PublisherTranscript t = publisher(7, pubrec(7, 0), "drop", Packet.connack(0, true), "pubrel",
                pubcomp(7, ReasonCodes.PACKET_IDENTIFIER_NOT_FOUND));
        assertEquals(Step.REPUBLISH, t.next());
        t.published(8);
        assertEquals(Step.AWAIT, t.next());
        t.received(pubrec(8, 0));
        assertEquals(Step.PUBREL, t.next());
        t.released();
        t.received(pubcomp(8, 0));
        assertEquals(Step.DONE, t.next());
        assertTrue(t.republished());
        assertEquals(0x92, t.pubcompReason());
        assertEquals(0, t.republishPubcompReason());
        assertFalse(t.fakedPubcomp(), "0x92 is the honest answer");
        assertNull(t.error());
    }

    @Test
    void aRepublishAfterADeliveryAtPublishTimeIsSeenAsADuplicate() {
        // A broker that delivered at PUBLISH (EMQX's way) and then lost the session: the republish is a second copy.
        PublisherTranscript t = publisher(7, pubrec(7, 0), "drop", Packet.connack(0, false), "pubrel",
                pubcomp(7, 0x92), 8, pubrec(8, 0), "pubrel", pubcomp(8, 0));
        Qos2Receiver sub = subscriber(Packet.publish(3, 2, false, M), pubrel(3), Packet.publish(4, 2, false, M),
                pubrel(4));
        MessageResult result = new MessageResult(t, sub.deliveries(M), 30.0);
        assertEquals(Verdict.DUPLICATED, result.verdict());
        ProbeSummary summary = new ProbeSummary(Map.of(), List.of(result), List.of(), sub.retransmissions());
        assertFalse(summary.ok());
        assertEquals(1, summary.json().get("duplicates"));
        assertEquals(1, summary.json().get("republished"));
    }

    @Test
    void successOnASessionTheBrokerSaidWasNewIsAFakedPubcomp() {
        // Mosquitto restarted without persistence: CONNACK session present 0, PUBREL p, PUBCOMP 0x00; it held the
        // message until PUBREL, so the subscriber never gets it.
        PublisherTranscript t = publisher(1, pubrec(1, 0), "drop", Packet.connack(0, false), "pubrel", pubcomp(1, 0));
        assertEquals(Step.DONE, t.next());
        assertTrue(t.fakedPubcomp());
        assertFalse(t.republished());
        MessageResult result = new MessageResult(t, subscriber().deliveries(M), 3.0);
        assertEquals(Verdict.LOST, result.verdict());
        ProbeSummary summary = new ProbeSummary(Map.of(), List.of(result), List.of(), 0);
        assertFalse(summary.ok());
        assertEquals(1, summary.json().get("lost"));
        assertEquals(1, summary.json().get("faked_pubcomp"));
        assertEquals(Map.of("0x00", 1), summary.json().get("pubcomp_reasons"));
        assertEquals(Map.of("false", 1), summary.json().get("session_present_on_reconnect"));
    }

    @Test
    void serverBusyDuringTakeoverIsRetriedAndCounted() {
        PublisherTranscript t = publisher(2, pubrec(2, 0), "drop", Packet.connack(ReasonCodes.SERVER_BUSY, false));
        assertEquals(Step.RECONNECT, t.next());
        t.received(Packet.connack(0, true));
        assertEquals(Step.PUBREL, t.next());
        assertEquals(1, t.busyRetries());
        assertTrue(t.sessionPresent());
    }

    @Test
    void refusalsAndLostConnectionsEndTheFlowWithAReason() {
        assertEquals("PUBREC 0x87", publisher(1, pubrec(1, 0x87)).error());
        assertEquals("reconnect refused: CONNACK 0x87",
                publisher(1, pubrec(1, 0), "drop", Packet.connack(0x87, false)).error());
        assertEquals("PUBCOMP 0x80",
                publisher(1, pubrec(1, 0), "drop", Packet.connack(0, true), "pubrel", pubcomp(1, 0x80)).error());
        PublisherTranscript closed = publisher(1, pubrec(1, 0), "drop", Packet.connack(0, true), "pubrel",
                Packet.closed());
        assertEquals(Step.FAILED, closed.next());
        assertEquals("connection closed while await pubcomp", closed.error());
        // A PUBREC for another packet id is not ours: still waiting.
        assertEquals(Step.AWAIT, publisher(1, pubrec(2, 0)).next());
    }

    @Test
    void theSubscriberCountsRealSecondCopiesAndForgetsIdsWithTheSession() {
        // Same id again after PUBREL: a new message with the same payload, i.e. a duplicate.
        assertEquals(2, subscriber(Packet.publish(1, 2, false, M), pubrel(1), Packet.publish(1, 2, false, M))
                .deliveries(M));
        // Session lost (CONNACK session present 0) between PUBLISH and the broker's resend: the resend is new.
        assertEquals(2, subscriber(Packet.publish(1, 2, false, M), Packet.connack(0, false),
                Packet.publish(1, 2, true, M)).deliveries(M));
        // Session kept: the resend with DUP is the same message.
        assertEquals(1, subscriber(Packet.publish(1, 2, false, M), Packet.connack(0, true),
                Packet.publish(1, 2, true, M)).deliveries(M));
        // PUBREL for an unknown id: PUBCOMP 0x92, honestly.
        assertEquals(0x92, new Qos2Receiver().onPacket(pubrel(9)).orElseThrow().reasonCode());
        assertEquals(Type.PUBREC, new Qos2Receiver().onPacket(Packet.publish(5, 2, false, M)).orElseThrow().type());
    }

    @Test
    void theSummaryCountsVerdictsReasonsAndTakeoverPercentiles() {
        PublisherTranscript a = publisher(1, pubrec(1, 0), "drop", Packet.connack(0, true), "pubrel", pubcomp(1, 0));
        PublisherTranscript b = publisher(2, pubrec(2, 0), "drop", Packet.connack(0, true), "pubrel",
                pubcomp(2, 0x92), 3, pubrec(3, 0), "pubrel", pubcomp(3, 0));
        ProbeSummary summary = new ProbeSummary(Map.of("run_id", "r"),
                List.of(new MessageResult(a, 1, 10.0), new MessageResult(b, 1, 20.0)), List.of(), 0);
        assertTrue(summary.ok(), summary.json().toString());
        assertEquals(2, summary.json().get("exactly_once"));
        assertEquals(Map.of("0x00", 1, "0x92", 1), summary.json().get("pubcomp_reasons"));
        @SuppressWarnings("unchecked")
        Map<String, Object> takeover = (Map<String, Object>) summary.json().get("takeover_ms");
        assertEquals(2L, takeover.get("count"));
        assertEquals(10.0, (double) takeover.get("p50"), 0.1);
        assertEquals(20.0, (double) takeover.get("max"), 0.1);
        assertEquals(List.of(), summary.json().get("not_exactly_once"));
    }
}
