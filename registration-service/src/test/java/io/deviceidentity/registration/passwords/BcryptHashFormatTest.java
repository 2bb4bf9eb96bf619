package io.deviceidentity.registration.passwords;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.util.List;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.FieldSource;

import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.testsupport.ForeignBcryptHashes;

/** Which ready-made hashes may be stored: exactly those the services' verifier checks correctly. */
class BcryptHashFormatTest {

    static final List<ForeignBcryptHashes.Vector> VECTORS = ForeignBcryptHashes.ALL;
    static final List<String> NOT_STORABLE = ForeignBcryptHashes.NOT_STORABLE;

    @ParameterizedTest(name = "{0}")
    @FieldSource("VECTORS")
    void aHashFromAnotherImplementationIsAcceptedAndVerifiesWithItsPassword(ForeignBcryptHashes.Vector vector) {
        assertNull(BcryptHashFormat.problem("password_hash", vector.hash()));
        assertTrue(Bcrypt.matches(vector.password(), vector.hash()), "Bouncy Castle verifies libxcrypt's hash");
        assertFalse(Bcrypt.matches(vector.password() + "x", vector.hash()));
    }

    @Test
    void everyPrefixAndTheCostBoundsAreAccepted() {
        for (String prefix : List.of("$2a$", "$2b$", "$2y$")) {
            for (String cost : List.of("04", "10", "14")) {
                String hash = prefix + cost + "$" + ForeignBcryptHashes.OPENWALL_2A.hash().substring(7);
                assertNull(BcryptHashFormat.problem("password_hash", hash), hash);
            }
        }
    }

    @ParameterizedTest(name = "\"{0}\"")
    @FieldSource("NOT_STORABLE")
    void anythingElseIsRefusedWithAMessageNamingTheFieldAndNotQuotingTheHash(String hash) {
        String problem = BcryptHashFormat.problem("password_hash", hash);
        assertNotNull(problem, hash);
        assertTrue(problem.contains("'password_hash'"), problem);
        if (hash.length() > 8) {
            assertFalse(problem.contains(hash.substring(7)), problem);
        }
    }

    @Test
    void aHashBouncyCastleWouldMisreadIsRefused() {
        // '_' lies inside the character range Bouncy Castle's salt decoder lets through, and decodes to garbage.
        String underscore = "$2a$05$CCCCCCCCCCCCCCCCCCCCC_E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW";
        assertNotNull(BcryptHashFormat.problem("password_hash", underscore));
        assertFalse(Bcrypt.matches("U*U", underscore));
    }
}
