package io.deviceidentity.auth.fastpath;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import java.nio.charset.StandardCharsets;
import java.util.Arrays;

import org.junit.jupiter.api.Test;

class VerifiersTest {

    private static final String HASH = "$2a$10$abcdefghijklmnopqrstuuN0HVVZEMXSYpTqsNYUgdU5YYOeYpTtS";
    private final VerifierKey key = TestKeys.CURRENT;

    @Test
    void fieldsThatConcatenateToTheSameBytesGiveDifferentVerifiers() {
        byte[] base = mac("ab", "c", "pw");
        differs(base, mac("a", "bc", "pw"));                 // client id | username
        differs(mac("id", "ab", "c"), mac("id", "a", "bc"));   // username | password
        differs(mac("idc", "", "pw"), mac("id", "c", "pw"));   // an empty field is still a field
        differs(mac("id", null, "pw"), mac("id", "", "pw"));   // no username is not an empty one
    }

    @Test
    void theVerifierCoversTheStoredBcryptStringAndTheKey() {
        byte[] base = mac("id", "u", "pw");
        differs(base, Verifiers.mac(key, "id", "u", utf8("pw"), HASH.replace('a', 'b')));
        differs(base, Verifiers.mac(TestKeys.unknown(key.id()), "id", "u", utf8("pw"), HASH));
        assertEquals(Verifiers.MAC_BYTES, base.length);
        assertEquals(Arrays.toString(base), Arrays.toString(mac("id", "u", "pw")), "deterministic");
    }

    @Test
    void passwordsSharingTheirFirst72BytesGiveDifferentVerifiers() {
        String seventyTwo = "p".repeat(72);
        differs(mac("id", "u", seventyTwo), mac("id", "u", seventyTwo + "q"));
        differs(mac("id", "u", seventyTwo), mac("id", "u", seventyTwo.substring(1)));
    }

    @Test
    void theSingleFlightKeyIsNotTheVerifier() {
        assertFalse(Arrays.equals(mac("id", "u", "pw"),
                Verifiers.flightKey(key.secret(), "id", "u", utf8("pw"), HASH)));
    }

    private byte[] mac(String clientId, String username, String password) {
        return Verifiers.mac(key, clientId, username, utf8(password), HASH);
    }

    private static void differs(byte[] one, byte[] other) {
        assertFalse(Arrays.equals(one, other));
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
