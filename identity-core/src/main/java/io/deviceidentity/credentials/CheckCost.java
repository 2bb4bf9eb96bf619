package io.deviceidentity.credentials;

import io.deviceidentity.credentials.legacy.Argon2id;
import io.deviceidentity.credentials.legacy.LegacyHash;
import io.deviceidentity.credentials.legacy.Pbkdf2;
import io.deviceidentity.credentials.legacy.SaltedDigest;

/**
 * What verifying a stored credential costs, in units of one bcrypt verification at cost 10. Admission and the
 * failure budgets charge a check by this, not by the request, so that an attacker who picks the most expensive rows
 * (a cost-14 bcrypt, a 600 000-round PBKDF2) buys no more CPU per attempt than an ordinary guess.
 *
 * <p>bcrypt doubles its work with each step of cost, so a cost-{@code c} row is {@code 2^(c-10)} units exactly. The
 * other schemes are linear in their parameters; their per-round factors are calibrated from one-thread Bouncy Castle
 * measurements as ratios to a cost-10 bcrypt in the same run (PBKDF2 at 600 000 rounds ≈ 11.5, argon2id at m=32 MiB,
 * t=10 ≈ 5.4 and at m=4 MiB, t=3 ≈ 0.6; the argon2 factor takes the dearer of the two, so it never undercharges). A
 * salted digest costs microseconds and is charged a small floor rather than nothing.
 */
public final class CheckCost {

    /** A cost-10 bcrypt verification. */
    public static final double UNIT = 1.0;
    /** What the cheapest check (a salted digest, a malformed row) is charged. */
    public static final double FLOOR = 1.0 / 1024;
    /** bcrypt's cost parameter of the unit. */
    static final int UNIT_BCRYPT_COST = 10;
    /** Units per PBKDF2 iteration: 600 000 iterations ≈ 11.5 units. */
    static final double PBKDF2_PER_ITERATION = 11.5 / 600_000;
    /** Units per argon2 pass over one KiB: m=4 MiB, t=3 ≈ 0.6 units. */
    static final double ARGON2_PER_KIB_PASS = 0.6 / (4096 * 3);

    private CheckCost() {
    }

    /** The units of verifying {@code credential}'s stored hash (without the fast path). */
    public static double of(DeviceCredential credential) {
        if (!credential.legacy()) {
            return bcrypt(credential.passwordHash());
        }
        if (credential.passwordScheme() == null) {
            return FLOOR;
        }
        try {
            return legacy(LegacyHash.parse(credential.passwordScheme(), credential.passwordHash()));
        } catch (IllegalArgumentException malformed) {
            // A row that does not parse never verifies, and refusing it costs nothing.
            return FLOOR;
        }
    }

    /** The units of a bcrypt verification against {@code storedHash}; a hash whose cost cannot be read is one unit. */
    public static double bcrypt(String storedHash) {
        int cost = bcryptCost(storedHash);
        return cost < 0 ? UNIT : bcrypt(cost);
    }

    /** The units of a bcrypt hash or verification at {@code cost}. */
    public static double bcrypt(int cost) {
        return Math.scalb(UNIT, cost - UNIT_BCRYPT_COST);
    }

    /** The cost parameter of a modular-crypt bcrypt string ({@code $2b$10$…}), or -1 when it has none. */
    public static int bcryptCost(String storedHash) {
        if (storedHash == null || storedHash.length() < 7 || storedHash.charAt(0) != '$' || storedHash.charAt(1) != '2'
                || storedHash.charAt(3) != '$' || storedHash.charAt(6) != '$') {
            return -1;
        }
        char tens = storedHash.charAt(4);
        char ones = storedHash.charAt(5);
        if (tens < '0' || tens > '3' || ones < '0' || ones > '9') {
            return -1;
        }
        int cost = (tens - '0') * 10 + (ones - '0');
        return cost >= 4 && cost <= 31 ? cost : -1;
    }

    /** The units of verifying a parsed legacy hash. */
    public static double legacy(LegacyHash hash) {
        double units;
        if (hash instanceof Pbkdf2 pbkdf2) {
            units = pbkdf2.iterations() * PBKDF2_PER_ITERATION;
        } else if (hash instanceof Argon2id argon2) {
            units = (double) argon2.memoryKiB() * argon2.iterations() * ARGON2_PER_KIB_PASS;
        } else if (hash instanceof SaltedDigest) {
            units = FLOOR;
        } else {
            units = UNIT;
        }
        return Math.max(FLOOR, units);
    }
}
