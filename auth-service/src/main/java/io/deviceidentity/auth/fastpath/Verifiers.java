package io.deviceidentity.auth.fastpath;

import java.io.ByteArrayOutputStream;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;

import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * Computes a verifier: HMAC-SHA256 over length-prefixed fields, so that no two different inputs share an encoding
 * (EMQX 6.0's node cache collided on "XX"+"X" vs "X"+"XX" because its fields were simply joined, emqx/emqx#18391).
 * The fields, in order, each as a 4-byte big-endian length and its bytes (length -1 for an absent username):
 * the format version, the key id, the client id, the username, the password exactly as bcrypt checked it (its UTF-8
 * bytes, at most 72, never truncated: {@link io.deviceidentity.credentials.PasswordPolicy}), and the exact stored
 * bcrypt string. The stored string carries the salt, so a new password (or the same one registered again) has a
 * new string and every old verifier stops matching.
 */
public final class Verifiers {

    static final String FORMAT = "device-identity/verifier/v1";
    public static final int MAC_BYTES = 32;

    private Verifiers() {
    }

    public static byte[] mac(VerifierKey key, String clientId, String username, byte[] password, String storedHash) {
        return mac(key.secret(), key.id(), clientId, username, password, storedHash);
    }

    /**
     * The same MAC under a key that never leaves the process: the single-flight key of a cold check
     * ({@link io.deviceidentity.auth.authn.IdenticalChecks}).
     */
    public static byte[] flightKey(SecretKeySpec processKey, String clientId, String username, byte[] password,
            String storedHash) {
        return mac(processKey, "single-flight", clientId, username, password, storedHash);
    }

    static byte[] mac(SecretKeySpec secret, String keyId, String clientId, String username, byte[] password,
            String storedHash) {
        ByteArrayOutputStream input = new ByteArrayOutputStream(256);
        field(input, utf8(FORMAT));
        field(input, utf8(keyId));
        field(input, utf8(clientId));
        field(input, username == null ? null : utf8(username));
        field(input, password);
        field(input, utf8(storedHash));
        try {
            // A Mac is not thread-safe and getInstance costs about a microsecond: cheaper than sharing one.
            Mac mac = Mac.getInstance("HmacSHA256");
            mac.init(secret);
            return mac.doFinal(input.toByteArray());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("HmacSHA256 is not available", e);
        }
    }

    private static void field(ByteArrayOutputStream out, byte[] value) {
        out.writeBytes(ByteBuffer.allocate(4).putInt(value == null ? -1 : value.length).array());
        if (value != null) {
            out.writeBytes(value);
        }
    }

    private static byte[] utf8(String text) {
        return text.getBytes(StandardCharsets.UTF_8);
    }
}
