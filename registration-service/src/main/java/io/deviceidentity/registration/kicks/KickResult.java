package io.deviceidentity.registration.kicks;

/**
 * What one call to EMQX's kick API came to. {@code delivered}: the row may go (EMQX ended the session, or holds
 * none for the client id); otherwise {@code failure} is a short code for metrics and the row (never a body).
 */
public record KickResult(boolean delivered, String outcome) {

    /** 204: EMQX ended the session. */
    public static final KickResult KICKED = new KickResult(true, "kicked");
    /** 404 CLIENTID_NOT_FOUND: no session for the client id on any node, nothing to end. */
    public static final KickResult NOT_CONNECTED = new KickResult(true, "not_connected");

    public static KickResult failed(String reason) {
        return new KickResult(false, reason);
    }
}
