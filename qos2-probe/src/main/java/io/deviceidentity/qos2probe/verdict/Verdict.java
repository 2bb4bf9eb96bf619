package io.deviceidentity.qos2probe.verdict;

/** What the subscriber's application saw of one unique payload. */
public enum Verdict {
    EXACTLY_ONCE, DUPLICATED, LOST;

    /** From the number of application deliveries (after the subscriber's own QoS 2 de-duplication). */
    public static Verdict of(int deliveries) {
        return deliveries == 0 ? LOST : deliveries == 1 ? EXACTLY_ONCE : DUPLICATED;
    }
}
