package io.deviceidentity.qos2probe.probe;

import java.time.Duration;

import io.deviceidentity.qos2probe.mqtt.BrokerAddress;
import io.deviceidentity.qos2probe.mqtt.ConnectSpec;
import io.deviceidentity.qos2probe.mqtt.MqttLink;
import io.deviceidentity.qos2probe.mqtt.MqttLinks;
import io.deviceidentity.qos2probe.verdict.Packet;
import io.deviceidentity.qos2probe.verdict.PublisherTranscript;
import io.deviceidentity.qos2probe.verdict.PublisherTranscript.Step;
import io.deviceidentity.qos2probe.verdict.ReasonCodes;

/**
 * The publisher of the boundary case: for each message a fresh connection to node A, PUBLISH QoS 2, PUBREC, drop;
 * then node B with the same client id and clean_start=false, PUBREL, PUBCOMP, and a republish on 0x92. Every
 * decision is {@link PublisherTranscript}'s; this class only moves the packets and measures the takeover.
 */
public final class Publisher {

    private final MqttLinks links;
    private final BrokerAddress nodeA;
    private final BrokerAddress nodeB;
    private final ConnectSpec spec;
    private final String topic;
    private final Duration timeout;
    private final Duration reconnectTimeout;
    private int nextPacketId;
    private boolean sessionReset;

    /** The outcome of one message on the publisher's side. */
    public record Flow(PublisherTranscript transcript, Double takeoverMs) {
    }

    public Publisher(MqttLinks links, BrokerAddress nodeA, BrokerAddress nodeB, ConnectSpec spec, String topic,
            Duration timeout, Duration reconnectTimeout) {
        this.links = links;
        this.nodeA = nodeA;
        this.nodeB = nodeB;
        this.spec = spec;
        this.topic = topic;
        this.timeout = timeout;
        this.reconnectTimeout = reconnectTimeout;
    }

    public Flow send(int index, String payload, ReconnectHook hook, Subscriber subscriber) throws Exception {
        PublisherTranscript transcript = new PublisherTranscript(payload);
        Double takeoverMs = null;
        MqttLink link = null;
        try {
            if (!sessionReset) {
                // Nothing left over from an earlier run with this client id.
                String problem = Sessions.reset(links, nodeA, spec, timeout);
                if (problem != null) {
                    transcript.failed(problem);
                    return new Flow(transcript, null);
                }
                sessionReset = true;
            }
            link = connect(nodeA, spec.withCleanStart(false), transcript);
            if (link == null) {
                return new Flow(transcript, null);
            }
            publish(link, payload, transcript);
            awaitStep(link, transcript, "PUBREC from " + nodeA);
            if (transcript.next() != Step.DROP) {
                return new Flow(transcript, null);
            }
            link.drop();
            transcript.dropped();
            link = null;

            hook.beforeReconnect(index);
            if (subscriber != null && !subscriber.awaitReady(reconnectTimeout)) {
                transcript.failed("subscriber not back within " + reconnectTimeout.toSeconds() + "s: "
                        + subscriber.lastProblem());
                return new Flow(transcript, null);
            }
            long started = System.nanoTime();
            link = reconnect(nodeB, transcript);
            if (link == null) {
                return new Flow(transcript, null);
            }
            takeoverMs = (System.nanoTime() - started) / 1e6;

            release(link, transcript);
            awaitStep(link, transcript, "PUBCOMP from " + nodeB);
            if (transcript.next() == Step.REPUBLISH) {
                publish(link, payload, transcript);
                awaitStep(link, transcript, "PUBREC for the republished message");
                if (transcript.next() == Step.PUBREL) {
                    release(link, transcript);
                    awaitStep(link, transcript, "PUBCOMP for the republished message");
                }
            }
            return new Flow(transcript, takeoverMs);
        } finally {
            if (link != null) {
                link.disconnect();
            }
        }
    }

    private void publish(MqttLink link, String payload, PublisherTranscript transcript) {
        int id = packetId();
        link.publish(topic, 2, id, payload);
        transcript.published(id);
    }

    private void release(MqttLink link, PublisherTranscript transcript) {
        link.reply(Packet.reply(Packet.Type.PUBREL, transcript.packetId(), ReasonCodes.SUCCESS));
        transcript.released();
    }

    /** Feeds packets to the transcript until it stops waiting; a timeout ends the message's flow. */
    private void awaitStep(MqttLink link, PublisherTranscript transcript, String what) throws InterruptedException {
        Packet last = link.await(p -> transcript.next() != Step.AWAIT, timeout, transcript::received);
        if (last == null && transcript.next() == Step.AWAIT) {
            transcript.failed("no " + what + " within " + timeout.toMillis() + " ms");
        }
    }

    /** The first connect to node A; a busy answer (EMQX still finishing the last takeover) is retried. */
    private MqttLink connect(BrokerAddress node, ConnectSpec connect, PublisherTranscript transcript)
            throws InterruptedException {
        long deadline = System.nanoTime() + reconnectTimeout.toNanos();
        String problem;
        do {
            try {
                MqttLink link = links.open(node, timeout, connect.keepAliveSeconds(), null);
                Packet connack = link.connect(connect, timeout);
                if (connack != null && connack.type() == Packet.Type.CONNACK && connack.reasonCode() == 0) {
                    return link;
                }
                link.drop();
                problem = "CONNACK from " + node + ": " + (connack == null ? "none" : connack);
                if (connack == null || connack.reasonCode() != ReasonCodes.SERVER_BUSY) {
                    break;
                }
            } catch (MqttLink.LinkException e) {
                problem = e.getMessage();
            }
            Thread.sleep(100);
        } while (System.nanoTime() < deadline);
        transcript.failed("connect to node A: " + problem);
        return null;
    }

    /**
     * Node B, same client id, clean_start=false, until CONNACK 0x00 or the reconnect timeout: a broker that is
     * restarting refuses TCP for a moment, and EMQX answers 0x89 while the takeover holds the client id's lock.
     */
    private MqttLink reconnect(BrokerAddress node, PublisherTranscript transcript) throws InterruptedException {
        long deadline = System.nanoTime() + reconnectTimeout.toNanos();
        String problem = "timed out";
        while (System.nanoTime() < deadline) {
            MqttLink link;
            try {
                link = links.open(node, timeout, spec.keepAliveSeconds(), null);
            } catch (MqttLink.LinkException e) {
                problem = e.getMessage();
                Thread.sleep(100);
                continue;
            }
            Packet connack = link.connect(spec.withCleanStart(false), timeout);
            if (connack == null || connack.type() != Packet.Type.CONNACK) {
                problem = "no CONNACK from " + node + (connack == null ? "" : " (" + connack + ")");
                link.drop();
                Thread.sleep(100);
                continue;
            }
            transcript.received(connack);
            if (transcript.next() == Step.PUBREL) {
                return link;
            }
            link.drop();
            if (transcript.next() != Step.RECONNECT) {
                return null;
            }
            Thread.sleep(100);
        }
        transcript.failed("reconnect to node B: " + problem);
        return null;
    }

    private int packetId() {
        nextPacketId = nextPacketId % 65535 + 1;
        return nextPacketId;
    }
}
