package io.deviceidentity.credentials.legacy;

import java.security.MessageDigest;
import java.util.Base64;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;

/**
 * argon2id (RFC 9106) with Bouncy Castle's {@link Argon2BytesGenerator}, in the PHC string format that
 * mosquitto-go-auth writes and reads ({@code $argon2id$v=19$m=4096,t=3,p=2$<salt>$<hash>}, salt and hash in base64
 * without padding; iegomez/mosquitto-go-auth {@code hashing/argon2id.go}, which accepts only version 19 and takes
 * the key length from the stored hash). The stored form is that string, re-encoded canonically.
 */
public record Argon2id(int memoryKiB, int iterations, int parallelism, byte[] salt, byte[] expected)
        implements LegacyHash {

    private static final Pattern PHC = Pattern.compile(
            "\\$argon2id\\$v=(\\d{1,3})\\$m=(\\d{1,10}),t=(\\d{1,10}),p=(\\d{1,10})\\$([A-Za-z0-9+/]+={0,2})"
                    + "\\$([A-Za-z0-9+/]+={0,2})");
    /** Argon2's own minimum salt (RFC 9106 section 3.1). */
    private static final int MIN_SALT_BYTES = 8;

    public Argon2id {
        salt = salt.clone();
        expected = expected.clone();
        if (iterations < 1 || iterations > LegacyLimits.MAX_ARGON2_ITERATIONS) {
            throw new IllegalArgumentException("argon2 t must be 1 to " + LegacyLimits.MAX_ARGON2_ITERATIONS);
        }
        if (parallelism < 1 || parallelism > LegacyLimits.MAX_ARGON2_PARALLELISM) {
            throw new IllegalArgumentException("argon2 p must be 1 to " + LegacyLimits.MAX_ARGON2_PARALLELISM);
        }
        // RFC 9106: at least 8 KiB per lane.
        if (memoryKiB < 8 * parallelism || memoryKiB > LegacyLimits.MAX_ARGON2_MEMORY_KIB) {
            throw new IllegalArgumentException("argon2 m must be 8×p to " + LegacyLimits.MAX_ARGON2_MEMORY_KIB
                    + " KiB");
        }
        if (salt.length < MIN_SALT_BYTES || salt.length > LegacyLimits.MAX_SALT_BYTES) {
            throw new IllegalArgumentException("argon2 salt must be " + MIN_SALT_BYTES + " to "
                    + LegacyLimits.MAX_SALT_BYTES + " bytes");
        }
        if (expected.length < LegacyLimits.MIN_KEY_BYTES || expected.length > LegacyLimits.MAX_KEY_BYTES) {
            throw new IllegalArgumentException("argon2 hash must be " + LegacyLimits.MIN_KEY_BYTES + " to "
                    + LegacyLimits.MAX_KEY_BYTES + " bytes");
        }
    }

    @Override
    public PasswordScheme scheme() {
        return PasswordScheme.ARGON2ID;
    }

    /** Parses a PHC string (the import's and the stored form alike). */
    public static Argon2id parse(String phc) {
        Matcher parts = PHC.matcher(phc);
        if (!parts.matches()) {
            throw new IllegalArgumentException(
                    "an argon2id hash is a PHC string $argon2id$v=19$m=<KiB>,t=<passes>,p=<lanes>$<salt>$<hash>");
        }
        if (!parts.group(1).equals("19")) {
            throw new IllegalArgumentException("argon2id version must be 19 (0x13), as mosquitto-go-auth writes");
        }
        return new Argon2id(bounded(parts.group(2), "argon2 m"), bounded(parts.group(3), "argon2 t"),
                bounded(parts.group(4), "argon2 p"), Encodings.base64(parts.group(5), "salt"),
                Encodings.base64(parts.group(6), "hash"));
    }

    /** A parameter within int range; its real bound is checked by the constructor with a clearer message. */
    private static int bounded(String digits, String field) {
        long value = Long.parseLong(digits);
        if (value > Integer.MAX_VALUE) {
            throw new IllegalArgumentException(field + " is out of range");
        }
        return (int) value;
    }

    @Override
    public boolean matches(byte[] password) {
        Argon2BytesGenerator generator = new Argon2BytesGenerator();
        generator.init(new Argon2Parameters.Builder(Argon2Parameters.ARGON2_id)
                .withVersion(Argon2Parameters.ARGON2_VERSION_13)
                .withMemoryAsKB(memoryKiB).withIterations(iterations).withParallelism(parallelism)
                .withSalt(salt).build());
        byte[] actual = new byte[expected.length];
        generator.generateBytes(password, actual);
        return MessageDigest.isEqual(actual, expected);
    }

    @Override
    public String stored() {
        Base64.Encoder base64 = Base64.getEncoder().withoutPadding();
        return "$argon2id$v=19$m=" + memoryKiB + ",t=" + iterations + ",p=" + parallelism + "$"
                + base64.encodeToString(salt) + "$" + base64.encodeToString(expected);
    }

    @Override
    public String toString() {
        return "Argon2id[m=" + memoryKiB + ", t=" + iterations + ", p=" + parallelism + "]";
    }
}
