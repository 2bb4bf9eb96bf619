package io.deviceidentity.qos2probe.verdict;

/** The MQTT 5 reason codes the probe acts on, and their spelling in the JSON summary. */
public final class ReasonCodes {

    public static final int SUCCESS = 0x00;
    /** PUBCOMP/PUBREL: the broker has no state for this packet id; the client must publish again. */
    public static final int PACKET_IDENTIFIER_NOT_FOUND = 0x92;
    /** CONNACK (MQTT 5): what EMQX answers for a denied or unauthenticated device; 3.1.1 says 5. */
    public static final int NOT_AUTHORIZED = 0x87;
    public static final int NOT_AUTHORIZED_V311 = 0x05;
    /** CONNACK 0x89: EMQX's answer while the client id's lock is held during a takeover: retry shortly. */
    public static final int SERVER_BUSY = 0x89;

    private ReasonCodes() {
    }

    /** Reason codes of 0x80 and above mean failure (MQTT 5 §2.4). */
    public static boolean isFailure(int code) {
        return code >= 0x80;
    }

    public static String hex(int code) {
        return String.format("0x%02X", code);
    }
}
