package io.deviceidentity.auth.ratelimit;

/**
 * The source address a failure is charged to: EMQX's {@code peerhost} (the device's address as the broker sees it).
 * An address EMQX did not send is one shared source, "unknown": a broker template without {@code peerhost} puts every
 * device in one budget, which the docs warn about. Bounded in length like the column that stores it.
 */
public final class Sources {

    public static final String UNKNOWN = "unknown";
    static final int MAX_LENGTH = 64;

    private Sources() {
    }

    public static String of(String peerHost) {
        if (peerHost == null || peerHost.isBlank()) {
            return UNKNOWN;
        }
        String trimmed = peerHost.strip();
        return trimmed.length() > MAX_LENGTH ? trimmed.substring(0, MAX_LENGTH) : trimmed;
    }
}
