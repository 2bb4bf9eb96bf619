package io.deviceidentity.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class BcryptTest {

    @Test
    void hashIsModularCrypt2bWithTheRequestedCost() {
        String hash = Bcrypt.hash("secret-1", 5);
        assertTrue(hash.startsWith("$2b$05$"), hash.substring(0, 7));
        assertEquals(60, hash.length());
    }

    @Test
    void theSamePasswordHashesDifferentlyEachTime() {
        assertNotEquals(Bcrypt.hash("secret-1", 4), Bcrypt.hash("secret-1", 4));
    }

    @Test
    void matchesOnlyTheRightPassword() {
        String hash = Bcrypt.hash("correct horse", 4);
        assertTrue(Bcrypt.matches("correct horse", hash));
        assertFalse(Bcrypt.matches("correct hors", hash));
        assertFalse(Bcrypt.matches("correct horse ", hash));
    }

    @Test
    void verifiesHashesMadeByOtherBcryptImplementations() {
        // "$2a$" hash of "demo-password-1" as PostgreSQL's pgcrypto writes it (used by the demo seed).
        String pgcrypto = "$2a$10$nO3hZ9fueyxU4XGiVkPR3uHgFU7x1zFJuFlVyLbJVk1rtHQhwaLxK";
        assertTrue(Bcrypt.matches("demo-password-1", pgcrypto));
        assertFalse(Bcrypt.matches("demo-password-2", pgcrypto));
    }

    @Test
    void malformedStoredHashesNeverMatch() {
        assertFalse(Bcrypt.matches("x", null));
        assertFalse(Bcrypt.matches("x", "not-a-hash"));
        assertFalse(Bcrypt.matches("x", "$2b$10$" + "!".repeat(53)));
    }
}
