package io.deviceidentity.auth.ratelimit;

import static org.junit.jupiter.api.Assertions.assertEquals;

import org.junit.jupiter.api.Test;

import io.deviceidentity.credentials.CheckCost;

/** A failed check is charged its cost in cost-10 bcrypt units, rounded up, and at least one guess. */
class ChargeTest {

    @Test
    void aCost14RowIsCharged16AndACost10RowOne() {
        assertEquals(16, Charge.of(CheckCost.bcrypt("$2b$14$" + "a".repeat(53))));
        assertEquals(1, Charge.of(CheckCost.bcrypt("$2b$10$" + "a".repeat(53))));
    }

    @Test
    void aCheapRowIsStillOneGuessAndAFractionalCostIsRoundedUp() {
        assertEquals(1, Charge.of(CheckCost.bcrypt("$2b$04$" + "a".repeat(53))));
        assertEquals(12, Charge.of(11.5), "PBKDF2 at 600 000 rounds");
        assertEquals(Charge.MAX, Charge.of(Double.MAX_VALUE));
        assertEquals(1, Charge.of(Double.NaN));
    }
}
