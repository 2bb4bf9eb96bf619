package io.deviceidentity.credentials.legacy;

import java.security.MessageDigest;
import java.util.Base64;

import org.bouncycastle.crypto.Digest;
import org.bouncycastle.crypto.digests.SHA1Digest;
import org.bouncycastle.crypto.digests.SHA224Digest;
import org.bouncycastle.crypto.digests.SHA256Digest;
import org.bouncycastle.crypto.digests.SHA384Digest;
import org.bouncycastle.crypto.digests.SHA512Digest;
import org.bouncycastle.crypto.generators.PKCS5S2ParametersGenerator;
import org.bouncycastle.crypto.params.KeyParameter;

/**
 * PBKDF2-HMAC (RFC 8018) with Bouncy Castle's {@link PKCS5S2ParametersGenerator}, for EMQX's {@code pbkdf2}
 * ({@code crypto:pbkdf2_hmac(MacFun, Password, Salt, Iterations, DKLength)}, stored as lowercase hex, the salt used
 * as the salt column's text; emqx/emqx {@code apps/emqx/src/emqx_passwd.erl}) and mosquitto-go-auth's strings
 * ({@code PBKDF2$sha512$100000$<salt>$<base64 key>} and {@code $pbkdf2-sha512$i=…,l=…$<salt>$<key>};
 * iegomez/mosquitto-go-auth {@code hashing/pbkdf2.go}). Both are converted at import ({@link AnchorFormats}).
 *
 * <p>Stored form: {@code <iterations>$<base64 salt>$<base64 derived key>}; the key's length is the derived length.
 */
public record Pbkdf2(PasswordScheme scheme, int iterations, byte[] salt, byte[] expected) implements LegacyHash {

    public Pbkdf2 {
        salt = salt.clone();
        expected = expected.clone();
        digest(scheme);
        if (iterations < 1 || iterations > LegacyLimits.MAX_PBKDF2_ITERATIONS) {
            throw new IllegalArgumentException("iterations must be 1 to " + LegacyLimits.MAX_PBKDF2_ITERATIONS);
        }
        if (salt.length > LegacyLimits.MAX_SALT_BYTES) {
            throw new IllegalArgumentException("salt must be at most " + LegacyLimits.MAX_SALT_BYTES + " bytes");
        }
        if (expected.length < LegacyLimits.MIN_KEY_BYTES || expected.length > LegacyLimits.MAX_KEY_BYTES) {
            throw new IllegalArgumentException("the derived key must be " + LegacyLimits.MIN_KEY_BYTES + " to "
                    + LegacyLimits.MAX_KEY_BYTES + " bytes");
        }
    }

    /** The scheme of a PRF named as EMQX ({@code sha}, {@code sha256}) or mosquitto-go-auth ({@code sha512}) do. */
    static PasswordScheme schemeOf(String prf) {
        return switch (prf) {
            case "sha", "sha1" -> PasswordScheme.PBKDF2_SHA1;
            case "sha224" -> PasswordScheme.PBKDF2_SHA224;
            case "sha256" -> PasswordScheme.PBKDF2_SHA256;
            case "sha384" -> PasswordScheme.PBKDF2_SHA384;
            case "sha512" -> PasswordScheme.PBKDF2_SHA512;
            default -> null;
        };
    }

    private static Digest digest(PasswordScheme scheme) {
        return switch (scheme) {
            case PBKDF2_SHA1 -> new SHA1Digest();
            case PBKDF2_SHA224 -> new SHA224Digest();
            case PBKDF2_SHA256 -> new SHA256Digest();
            case PBKDF2_SHA384 -> new SHA384Digest();
            case PBKDF2_SHA512 -> new SHA512Digest();
            default -> throw new IllegalArgumentException(scheme.column() + " is not a PBKDF2 scheme");
        };
    }

    static Pbkdf2 parse(PasswordScheme scheme, String stored) {
        String[] parts = stored.split("\\$", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("a stored " + scheme.column() + " hash has three fields");
        }
        return new Pbkdf2(scheme, Encodings.count(parts[0], "iterations", LegacyLimits.MAX_PBKDF2_ITERATIONS),
                Encodings.base64(parts[1], "salt"), Encodings.base64(parts[2], "hash"));
    }

    @Override
    public boolean matches(byte[] password) {
        PKCS5S2ParametersGenerator generator = new PKCS5S2ParametersGenerator(digest(scheme));
        generator.init(password, salt, iterations);
        byte[] actual = ((KeyParameter) generator.generateDerivedParameters(expected.length * 8)).getKey();
        return MessageDigest.isEqual(actual, expected);
    }

    @Override
    public String stored() {
        Base64.Encoder base64 = Base64.getEncoder();
        return iterations + "$" + base64.encodeToString(salt) + "$" + base64.encodeToString(expected);
    }

    @Override
    public String toString() {
        return "Pbkdf2[scheme=" + scheme.column() + ", iterations=" + iterations + "]";
    }
}
