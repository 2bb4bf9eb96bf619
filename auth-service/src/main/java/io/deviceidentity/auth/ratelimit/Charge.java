package io.deviceidentity.auth.ratelimit;

import io.deviceidentity.credentials.CheckCost;
import io.deviceidentity.credentials.DeviceCredential;

/**
 * What a failed cold check is charged to the failure budgets: its cost in cost-10 bcrypt units
 * ({@link CheckCost}), rounded up, and never less than one. A guess stays a guess however cheap its row (the per-id
 * budgets bound guessing, not only CPU), and a dearer row costs as many guesses as hashes it is worth: a cost-14
 * bcrypt is charged 16, a 600 000-round PBKDF2 12. So an attacker who picks the most expensive rows gets
 * proportionally fewer checks, not 16 × the CPU.
 */
public final class Charge {

    /** A failure that cost no hash (an unknown id, a wrong username): one. */
    public static final int ONE = 1;
    /** No row the service verifies costs more; the bound keeps the shared counts far from integer overflow. */
    static final int MAX = 1 << 16;

    private Charge() {
    }

    public static int of(DeviceCredential credential) {
        return of(CheckCost.of(credential));
    }

    static int of(double units) {
        if (!(units > ONE)) {
            return ONE;
        }
        return units >= MAX ? MAX : (int) Math.ceil(units);
    }
}
