package io.deviceidentity.auth.overload;

import java.util.Map;

import io.quarkus.test.junit.QuarkusTestProfile;

/**
 * A deadline far shorter than one expensive hash (cost 16: ~5 s on a free core, 2.5 s on a fast one), yet long enough
 * that a cheap answer fits it on a machine whose cores other work keeps busy; and an optimistic estimate so admission
 * lets the work in. The row's cost is within the service's limit here ({@code max-check-units} 64), so that the
 * hash is admitted and outlives the deadline.
 */
public class ShortDeadlineProfile implements QuarkusTestProfile {

    /** What {@link #COST_16_HASH} was made from. */
    public static final String SLOW_PASSWORD = "slow-device-password";
    /**
     * A cost-16 bcrypt hash of {@link #SLOW_PASSWORD}, made once (Bouncy Castle's OpenBSDBCrypt): hashing it in the
     * test would cost the test itself seconds of CPU, minutes on a saturated machine.
     */
    public static final String COST_16_HASH = "$2b$16$iRvSBnCBeJK/Efa.TaI0qORtyEu4gNs1EwFB8TYTDpgFnhVMvidZW";

    @Override
    public Map<String, String> getConfigOverrides() {
        return Map.of(
                "identity.overload.deadline", "1500ms",
                "identity.overload.bcrypt.expected-duration", "1ms",
                "identity.auth.max-check-units", "64");
    }
}
