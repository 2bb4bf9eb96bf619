package io.deviceidentity.auth.authn;

import io.deviceidentity.credentials.DeviceCredential;

/**
 * A decided authentication: the EMQX result, why, the device when it was allowed, and whether a failure budget
 * refused it (then the answer's body names the reason, for the operator reading EMQX's logs: a device behind an
 * address over its budget is told apart from a wrong password).
 */
public record AuthnOutcome(String result, String reason, DeviceCredential device, boolean overBudget) {

    public static final String ALLOW = "allow";
    public static final String DENY = "deny";
    public static final String IGNORE = "ignore";

    public static AuthnOutcome allow(DeviceCredential device) {
        return new AuthnOutcome(ALLOW, "ok", device, false);
    }

    /** Allowed by a matching verifier, without bcrypt (the fast path). */
    public static AuthnOutcome verified(DeviceCredential device) {
        return new AuthnOutcome(ALLOW, "verified", device, false);
    }

    public static AuthnOutcome deny(String reason) {
        return new AuthnOutcome(DENY, reason, null, false);
    }

    /** Denied by a failure budget, without bcrypt: {@code 200 {"result":"deny","reason":...}}. */
    public static AuthnOutcome overBudget(String reason) {
        return new AuthnOutcome(DENY, reason, null, true);
    }

    public static AuthnOutcome ignore(String reason) {
        return new AuthnOutcome(IGNORE, reason, null, false);
    }
}
