package io.deviceidentity.credentials;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

class PasswordPolicyTest {

    @Test
    void acceptsPasswordsOfOneTo72Utf8Bytes() {
        assertTrue(PasswordPolicy.isUsable("x"));
        assertTrue(PasswordPolicy.isUsable("a".repeat(72)));
        assertNull(PasswordPolicy.problem("a".repeat(72)));
    }

    @Test
    void refusesEmptyAndMissingPasswords() {
        assertFalse(PasswordPolicy.isUsable(""));
        assertFalse(PasswordPolicy.isUsable(null));
        assertEquals("password must not be empty", PasswordPolicy.problem(""));
    }

    @Test
    void countsBytesNotCharacters() {
        // 24 three-byte characters are 72 bytes; one more ASCII byte makes 73.
        String euros = "€".repeat(24);
        assertTrue(PasswordPolicy.isUsable(euros));
        assertFalse(PasswordPolicy.isUsable(euros + "a"));
        assertFalse(PasswordPolicy.isUsable("a".repeat(73)));
        assertNotNull(PasswordPolicy.problem("a".repeat(73)));
    }

    @Test
    void refusesTextThatIsNotValidUnicodeRatherThanEncodingItAsQuestionMarks() {
        // A lone surrogate (a JSON escape can carry one) would become '?': the same bytes as the password "a?".
        String lone = "a" + '\uD800';
        assertFalse(PasswordPolicy.isUsable(lone));
        assertEquals("password must be valid Unicode text", PasswordPolicy.problem(lone));
        assertTrue(PasswordPolicy.isUsable("a\uD83D\uDE00")); // a surrogate pair is fine
    }

    @Test
    void passwordsSharingThe72BytePrefixDoNotMatchEachOther() {
        String prefix = "p".repeat(72);
        String hash = Bcrypt.hash(prefix, 4);
        assertTrue(Bcrypt.matches(prefix, hash));
        // A library that truncates would let this one in.
        assertFalse(Bcrypt.matches(prefix + "anything", hash));
    }

    @Test
    void hashingRefusesPasswordsThePolicyRefuses() {
        assertThrows(IllegalArgumentException.class, () -> Bcrypt.hash("a".repeat(73), 4));
        assertThrows(IllegalArgumentException.class, () -> Bcrypt.hash("", 4));
    }
}
