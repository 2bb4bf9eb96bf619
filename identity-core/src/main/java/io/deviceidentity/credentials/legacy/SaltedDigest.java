package io.deviceidentity.credentials.legacy;

import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.util.Base64;

/**
 * EMQX's simple hashes: {@code hash_data(Algorithm, salted(Salt, Password))} where the salt is put before
 * ({@code prefix}, EMQX's default) or after ({@code suffix}) the password or left out ({@code disable}), and the digest
 * is stored as lowercase hex; {@code plain} stores the salted password itself. Source: emqx/emqx
 * {@code apps/emqx/src/emqx_passwd.erl} ({@code hash/2}, {@code hash_data/2}; EMQX compares hex digests
 * caseless and plain values exactly, which comparing the decoded bytes reproduces). Mosquitto's {@code $6$}
 * password-file hash is the same shape: SHA-512 of the password followed by a 12-byte binary salt
 * ({@link AnchorFormats#mosquittoPasswd}).
 *
 * <p>Stored form: {@code <position>$<base64 salt>$<base64 expected bytes>}, the expected bytes being the digest (or,
 * for {@code plain}, the stored value). The salt is the salt column's bytes as EMQX uses them: EMQX's own salts are
 * 32 hex characters ({@code emqx_authn_password_hashing:gen_salt/1}) used as text, not decoded.
 */
public record SaltedDigest(PasswordScheme scheme, Position position, byte[] salt, byte[] expected)
        implements LegacyHash {

    /** Where EMQX puts the salt ({@code salt_position}). */
    public enum Position {
        PREFIX("prefix"), SUFFIX("suffix"), DISABLE("disable");

        private final String text;

        Position(String text) {
            this.text = text;
        }

        public String text() {
            return text;
        }

        public static Position of(String text) {
            for (Position position : values()) {
                if (position.text.equals(text)) {
                    return position;
                }
            }
            return null;
        }
    }

    public SaltedDigest {
        salt = salt.clone();
        expected = expected.clone();
        check(scheme, position, salt, expected);
    }

    /** The JCA name of the scheme's digest, or null for {@code plain}. */
    static String algorithm(PasswordScheme scheme) {
        return switch (scheme) {
            case PLAIN -> null;
            case MD5, SALTED_MD5 -> "MD5";
            case SHA1, SALTED_SHA1 -> "SHA-1";
            case SHA256, SALTED_SHA256 -> "SHA-256";
            case SHA512, SALTED_SHA512 -> "SHA-512";
            default -> throw new IllegalArgumentException(scheme.column() + " is not a simple digest");
        };
    }

    /** The scheme of an EMQX simple algorithm with this salt use: an empty or disabled salt is unsalted. */
    static PasswordScheme schemeOf(String emqxName, boolean salted) {
        return switch (emqxName) {
            case "plain" -> PasswordScheme.PLAIN;
            case "md5" -> salted ? PasswordScheme.SALTED_MD5 : PasswordScheme.MD5;
            case "sha" -> salted ? PasswordScheme.SALTED_SHA1 : PasswordScheme.SHA1;
            case "sha256" -> salted ? PasswordScheme.SALTED_SHA256 : PasswordScheme.SHA256;
            case "sha512" -> salted ? PasswordScheme.SALTED_SHA512 : PasswordScheme.SHA512;
            default -> null;
        };
    }

    private static void check(PasswordScheme scheme, Position position, byte[] salt, byte[] expected) {
        String algorithm = algorithm(scheme);
        if (position == null) {
            throw new IllegalArgumentException("salt position must be prefix, suffix or disable");
        }
        if (salt.length > LegacyLimits.MAX_SALT_BYTES) {
            throw new IllegalArgumentException("salt must be at most " + LegacyLimits.MAX_SALT_BYTES + " bytes");
        }
        boolean salted = position != Position.DISABLE && salt.length > 0;
        if (scheme != PasswordScheme.PLAIN && salted != scheme.column().startsWith("salted-")) {
            throw new IllegalArgumentException("scheme " + scheme.column() + " does not match the salt");
        }
        if (!salted && (position != Position.DISABLE || salt.length > 0)) {
            throw new IllegalArgumentException("an unsalted hash is stored with position disable and no salt");
        }
        if (algorithm == null) {
            if (expected.length == 0 || expected.length > LegacyLimits.MAX_PLAIN_BYTES) {
                throw new IllegalArgumentException("a plain value must be 1 to " + LegacyLimits.MAX_PLAIN_BYTES
                        + " bytes");
            }
        } else if (expected.length != digest(algorithm).getDigestLength()) {
            throw new IllegalArgumentException("the hash must be " + digest(algorithm).getDigestLength()
                    + " bytes for " + scheme.column());
        }
    }

    static SaltedDigest parse(PasswordScheme scheme, String stored) {
        String[] parts = stored.split("\\$", -1);
        if (parts.length != 3) {
            throw new IllegalArgumentException("a stored " + scheme.column() + " hash has three fields");
        }
        return new SaltedDigest(scheme, Position.of(parts[0]), Encodings.base64(parts[1], "salt"),
                Encodings.base64(parts[2], "hash"));
    }

    @Override
    public boolean matches(byte[] password) {
        byte[] input = switch (position) {
            case PREFIX -> concat(salt, password);
            case SUFFIX -> concat(password, salt);
            case DISABLE -> password;
        };
        String algorithm = algorithm(scheme);
        byte[] actual = algorithm == null ? input : digest(algorithm).digest(input);
        return MessageDigest.isEqual(actual, expected);
    }

    @Override
    public String stored() {
        Base64.Encoder base64 = Base64.getEncoder();
        return position.text() + "$" + base64.encodeToString(salt) + "$" + base64.encodeToString(expected);
    }

    private static byte[] concat(byte[] first, byte[] second) {
        byte[] both = new byte[first.length + second.length];
        System.arraycopy(first, 0, both, 0, first.length);
        System.arraycopy(second, 0, both, first.length, second.length);
        return both;
    }

    private static MessageDigest digest(String algorithm) {
        try {
            return MessageDigest.getInstance(algorithm);
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException(algorithm + " is part of every Java platform", e);
        }
    }

    @Override
    public String toString() {
        return "SaltedDigest[scheme=" + scheme.column() + ", position=" + position.text() + "]";
    }
}
