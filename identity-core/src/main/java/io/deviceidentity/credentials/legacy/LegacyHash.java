package io.deviceidentity.credentials.legacy;

/**
 * One imported hash, parsed from its stored form ({@code device_credentials.password_hash} beside its
 * {@link PasswordScheme}). Implementations compare in constant time ({@link java.security.MessageDigest#isEqual})
 * and never print their material.
 */
public sealed interface LegacyHash permits SaltedDigest, Pbkdf2, Argon2id {

    PasswordScheme scheme();

    /** Whether {@code password} (UTF-8 bytes, as every anchor hashes them) is the one this hash was made from. */
    boolean matches(byte[] password);

    /** The canonical stored form (what the import writes to {@code password_hash}). */
    String stored();

    /**
     * Parses a stored value of a legacy scheme; {@link IllegalArgumentException} (whose message names the problem,
     * never the value) when it is malformed or outside {@link LegacyLimits}.
     */
    static LegacyHash parse(PasswordScheme scheme, String stored) {
        if (stored == null) {
            throw new IllegalArgumentException("no stored hash");
        }
        return switch (scheme) {
            case BCRYPT -> throw new IllegalArgumentException("bcrypt is not a legacy scheme");
            case PLAIN, MD5, SALTED_MD5, SHA1, SALTED_SHA1, SHA256, SALTED_SHA256, SHA512, SALTED_SHA512 ->
                    SaltedDigest.parse(scheme, stored);
            case PBKDF2_SHA1, PBKDF2_SHA224, PBKDF2_SHA256, PBKDF2_SHA384, PBKDF2_SHA512 -> Pbkdf2.parse(scheme, stored);
            case ARGON2ID -> Argon2id.parse(stored);
        };
    }
}
