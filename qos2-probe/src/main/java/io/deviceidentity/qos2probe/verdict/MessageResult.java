package io.deviceidentity.qos2probe.verdict;

/**
 * One probe message: the publisher's transcript, how often the subscriber's application got its payload, and how
 * long the reconnect to node B took (from the start of the new TCP connect to CONNACK 0x00; null if it never came).
 */
public record MessageResult(PublisherTranscript publisher, int deliveries, Double takeoverMs) {

    public Verdict verdict() {
        return Verdict.of(deliveries);
    }
}
