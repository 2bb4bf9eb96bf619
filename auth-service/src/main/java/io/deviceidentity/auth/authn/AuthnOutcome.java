package io.deviceidentity.auth.authn;

import io.deviceidentity.credentials.DeviceCredential;

/** A decided authentication: the EMQX result, why, and the device when it was allowed. */
public record AuthnOutcome(String result, String reason, DeviceCredential device) {

    public static final String ALLOW = "allow";
    public static final String DENY = "deny";
    public static final String IGNORE = "ignore";

    public static AuthnOutcome allow(DeviceCredential device) {
        return new AuthnOutcome(ALLOW, "ok", device);
    }

    /** Allowed by a matching verifier, without bcrypt (the fast path). */
    public static AuthnOutcome verified(DeviceCredential device) {
        return new AuthnOutcome(ALLOW, "verified", device);
    }

    public static AuthnOutcome deny(String reason) {
        return new AuthnOutcome(DENY, reason, null);
    }

    public static AuthnOutcome ignore(String reason) {
        return new AuthnOutcome(IGNORE, reason, null);
    }
}
