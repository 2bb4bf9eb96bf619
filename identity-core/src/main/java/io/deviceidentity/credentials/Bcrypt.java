package io.deviceidentity.credentials;

import java.security.SecureRandom;

import org.bouncycastle.crypto.generators.OpenBSDBCrypt;

/**
 * bcrypt hashing and verification.
 *
 * <p>Bouncy Castle's {@link OpenBSDBCrypt} is the fastest JVM implementation measured here (about 60 ms per verify
 * at cost 10 on one core, against 80 ms for Elytron's), and the verifier's speed is the service's capacity. Its
 * {@code checkPassword} compares the whole hash string without an early exit, so the comparison takes the same time
 * whatever the mismatch. It would silently truncate long input, so every entry point here insists on
 * {@link PasswordPolicy} first.
 */
public final class Bcrypt {

    /** The work factor new hashes get unless configured otherwise. */
    public static final int DEFAULT_COST = 10;

    private Bcrypt() {
    }

    /** A new "$2b$" modular-crypt hash of a password that {@link PasswordPolicy} accepts. */
    public static String hash(String password, int cost) {
        byte[] bytes = requireUsable(password);
        byte[] salt = new byte[16];
        // A generator per hash, never one in a static field: a native image initialises this class at build time,
        // and a seeded generator frozen into the image heap would hand every process the same salts (GraalVM
        // refuses to build it). Creating one costs microseconds against the hash's tens of milliseconds.
        new SecureRandom().nextBytes(salt);
        return OpenBSDBCrypt.generate("2b", bytes, salt, cost);
    }

    /**
     * Whether the password matches the stored hash. A password the policy refuses, or a hash that is not a bcrypt
     * hash, never matches.
     */
    public static boolean matches(String password, String storedHash) {
        byte[] bytes = PasswordPolicy.usableBytes(password);
        if (bytes == null || storedHash == null || storedHash.length() != 60) {
            return false;
        }
        try {
            return OpenBSDBCrypt.checkPassword(storedHash, bytes);
        } catch (IllegalArgumentException | IllegalStateException malformedHash) {
            return false;
        }
    }

    private static byte[] requireUsable(String password) {
        byte[] bytes = PasswordPolicy.usableBytes(password);
        if (bytes == null) {
            throw new IllegalArgumentException(PasswordPolicy.problem(password));
        }
        return bytes;
    }
}
