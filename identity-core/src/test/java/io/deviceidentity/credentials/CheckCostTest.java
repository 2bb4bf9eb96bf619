package io.deviceidentity.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Instant;
import java.util.Base64;
import java.util.List;

import org.junit.jupiter.api.Test;

import io.deviceidentity.credentials.legacy.PasswordScheme;

class CheckCostTest {

    private static final String SALT = Base64.getEncoder().encodeToString(new byte[16]);
    private static final String KEY = Base64.getEncoder().encodeToString(new byte[32]);

    @Test
    void aBcryptRowCostsTwoToTheCostAboveTen() {
        assertEquals(1.0, CheckCost.bcrypt(Bcrypt.hash("correct-horse-battery-1", 10)));
        assertEquals(16.0, CheckCost.bcrypt("$2b$14$" + "a".repeat(53)));
        assertEquals(65_536.0, CheckCost.bcrypt("$2a$26$" + "a".repeat(53)));
        assertEquals(1.0 / 64, CheckCost.bcrypt(Bcrypt.hash("correct-horse-battery-1", 4)));
    }

    @Test
    void aBcryptStringWhoseCostCannotBeReadIsOneUnit() {
        assertEquals(-1, CheckCost.bcryptCost(null));
        assertEquals(-1, CheckCost.bcryptCost("$2b$1x$abc"));
        assertEquals(-1, CheckCost.bcryptCost("$2b$03$" + "a".repeat(53)));
        assertEquals(-1, CheckCost.bcryptCost("$2b$32$" + "a".repeat(53)));
        assertEquals(1.0, CheckCost.bcrypt("not-a-hash"));
    }

    @Test
    void pbkdf2IsChargedByItsRounds() {
        double mosquittoDefault = CheckCost.of(legacy(PasswordScheme.PBKDF2_SHA512, "100000$" + SALT + "$" + KEY));
        double owasp = CheckCost.of(legacy(PasswordScheme.PBKDF2_SHA256, "600000$" + SALT + "$" + KEY));
        assertEquals(11.5, owasp, 1e-9);
        assertEquals(owasp / 6, mosquittoDefault, 1e-9);
    }

    @Test
    void argon2IsChargedByMemoryTimesPasses() {
        String hash = Base64.getEncoder().withoutPadding().encodeToString(new byte[32]);
        String salt = Base64.getEncoder().withoutPadding().encodeToString(new byte[16]);
        double small = CheckCost.of(legacy(PasswordScheme.ARGON2ID, "$argon2id$v=19$m=4096,t=3,p=2$" + salt + "$" + hash));
        double large = CheckCost.of(legacy(PasswordScheme.ARGON2ID,
                "$argon2id$v=19$m=32768,t=10,p=16$" + salt + "$" + hash));
        assertEquals(0.6, small, 1e-9);
        assertTrue(large >= 5.4, "the dearest accepted argon2 is charged at least what it was measured at: " + large);
    }

    @Test
    void saltedDigestsAndUnreadableRowsCostTheFloor() {
        assertEquals(CheckCost.FLOOR, CheckCost.of(legacy(PasswordScheme.SALTED_SHA256, "prefix$" + SALT + "$" + KEY)),
                1e-12);
        assertEquals(CheckCost.FLOOR, CheckCost.of(legacy(PasswordScheme.PBKDF2_SHA512, "garbage")));
        assertEquals(CheckCost.FLOOR, CheckCost.of(legacy(null, "anything")));
    }

    private static DeviceCredential legacy(PasswordScheme scheme, String stored) {
        return new DeviceCredential("d1", "d1", stored, DeviceStatus.ACTIVE, false, List.of(), Instant.EPOCH,
                Instant.EPOCH, null, scheme);
    }
}
