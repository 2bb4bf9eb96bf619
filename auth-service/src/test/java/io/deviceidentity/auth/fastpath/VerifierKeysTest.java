package io.deviceidentity.auth.fastpath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.Base64;
import java.util.Optional;

import org.junit.jupiter.api.Test;

class VerifierKeysTest {

    private static final String K1 = Base64.getEncoder().encodeToString("a".repeat(32).getBytes());
    private static final String K2 = Base64.getEncoder().encodeToString("b".repeat(40).getBytes());

    @Test
    void aSingleKeyIsCurrentWithoutBeingNamed() {
        VerifierKeys keys = VerifierKeys.parse("k1:" + K1, Optional.empty());
        assertEquals("k1", keys.current().id());
        assertNull(keys.byId("k2"));
    }

    @Test
    void severalKeysNeedTheCurrentOneNamedAndItMustBeInTheSet() {
        assertThrows(IllegalArgumentException.class, () -> VerifierKeys.parse("k1:" + K1 + ",k2:" + K2,
                Optional.empty()));
        assertThrows(IllegalArgumentException.class, () -> VerifierKeys.parse("k1:" + K1 + ",k2:" + K2,
                Optional.of("k3")));
        VerifierKeys keys = VerifierKeys.parse(" k1:" + K1 + " , k2:" + K2, Optional.of("k2"));
        assertEquals("k2", keys.current().id());
        assertEquals("k1", keys.byId("k1").id());
    }

    @Test
    void malformedKeySetsAreRefusedWithoutEchoingAKey() {
        String shortKey = Base64.getEncoder().encodeToString("short-secret".getBytes());
        for (String bad : new String[] { "", "k1", "k1:" + shortKey, "k 1:" + K1, "k1:not*base64",
                "k1:" + K1 + ",k1:" + K2, "x".repeat(33) + ":" + K1 }) {
            IllegalArgumentException refusal = assertThrows(IllegalArgumentException.class,
                    () -> VerifierKeys.parse(bad, Optional.empty()), bad);
            assertFalse(refusal.getMessage().contains(K1) || refusal.getMessage().contains(shortKey),
                    refusal.getMessage());
        }
    }

    @Test
    void aKeyNeverShowsInToString() {
        VerifierKey key = VerifierKeys.parse("k1:" + K1, Optional.empty()).current();
        assertTrue(key.toString().contains("k1"));
        assertFalse(key.toString().contains(K1) || key.toString().contains("aaaa"));
    }
}
