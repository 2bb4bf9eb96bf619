package io.deviceidentity.credentials.legacy;

import java.nio.charset.StandardCharsets;

/**
 * Converts a hash as another broker's store holds it into its {@link LegacyHash}, checked and bounded: what an
 * import line carries ({@code password_scheme} plus the anchor's own columns) becomes the stored
 * {@code password_scheme} and {@code password_hash}. Each conversion follows the anchor's source, cited per method;
 * anything the anchor would read differently from us is refused rather than guessed.
 */
public final class AnchorFormats {

    public static final String HASH = "password_hash";
    public static final String SALT = "salt";
    public static final String SALT_POSITION = "salt_position";
    public static final String MAC_FUN = "mac_fun";
    public static final String ITERATIONS = "iterations";
    public static final String DK_LENGTH = "dk_length";
    public static final String SALT_ENCODING = "salt_encoding";

    private AnchorFormats() {
    }

    /**
     * An EMQX simple hash (built-in database, or the PostgreSQL/MySQL authenticators' {@code password_hash} and
     * {@code salt} columns) with {@code password_hash_algorithm {name = <algorithm>, salt_position = <position>}}:
     * {@code hash_data(Algorithm, <<Salt/binary, Password/binary>>)} for {@code prefix}, the other order for
     * {@code suffix}, the password alone for {@code disable}; digests as hex (emqx/emqx
     * {@code apps/emqx/src/emqx_passwd.erl}, {@code hash/2} and {@code hash_data/2}). The salt is used as the bytes
     * of its text, as EMQX does; EMQX's default position is {@code prefix}
     * ({@code emqx_authn_password_hashing.erl}, {@code salt_position(default)}).
     *
     * @param algorithm {@code plain}, {@code md5}, {@code sha}, {@code sha256} or {@code sha512}
     */
    public static LegacyHash emqxSimple(String algorithm, String hash, String salt, String position) {
        SaltedDigest.Position where = SaltedDigest.Position.of(position == null ? "prefix" : position);
        if (where == null) {
            throw new InvalidHashException(SALT_POSITION, "must be prefix, suffix or disable");
        }
        byte[] saltBytes = where == SaltedDigest.Position.DISABLE || salt == null ? new byte[0]
                : salt.getBytes(StandardCharsets.UTF_8);
        boolean salted = saltBytes.length > 0;
        PasswordScheme scheme = SaltedDigest.schemeOf(algorithm, salted);
        if (scheme == null) {
            throw new InvalidHashException("password_scheme", "unknown EMQX algorithm");
        }
        if (hash == null || hash.isEmpty()) {
            throw new InvalidHashException(HASH, "is required");
        }
        if (saltBytes.length > LegacyLimits.MAX_SALT_BYTES) {
            throw new InvalidHashException(SALT, "must be at most " + LegacyLimits.MAX_SALT_BYTES + " bytes");
        }
        byte[] expected;
        try {
            expected = scheme == PasswordScheme.PLAIN ? hash.getBytes(StandardCharsets.UTF_8)
                    : Encodings.hex(hash, "the hash");
        } catch (IllegalArgumentException notHex) {
            throw new InvalidHashException(HASH, notHex.getMessage() + " (EMQX stores digests as hex)");
        }
        return checked(HASH, () -> new SaltedDigest(scheme, salted ? where : SaltedDigest.Position.DISABLE,
                saltBytes, expected));
    }

    /**
     * An EMQX {@code pbkdf2} hash: {@code crypto:pbkdf2_hmac(MacFun, Password, Salt, Iterations, DKLength)} stored as
     * hex, with {@code DKLength} the digest's length unless {@code dk_length} is set (emqx/emqx
     * {@code apps/emqx/src/emqx_passwd.erl}, {@code pbkdf2/5} and {@code dk_length/1}); the salt is the salt column's
     * text, as EMQX generates and uses it ({@code emqx_authn_password_hashing:hash/2}).
     */
    public static LegacyHash emqxPbkdf2(String hash, String salt, String macFun, Integer iterations,
            Integer dkLength) {
        PasswordScheme scheme = macFun == null ? null : Pbkdf2.schemeOf(macFun);
        if (scheme == null || macFun.equals("sha1")) {
            throw new InvalidHashException(MAC_FUN, "must be one of sha, sha224, sha256, sha384, sha512");
        }
        if (iterations == null || iterations < 1 || iterations > LegacyLimits.MAX_PBKDF2_ITERATIONS) {
            throw new InvalidHashException(ITERATIONS, "must be a whole number from 1 to "
                    + LegacyLimits.MAX_PBKDF2_ITERATIONS);
        }
        if (hash == null || hash.isEmpty()) {
            throw new InvalidHashException(HASH, "is required");
        }
        byte[] expected;
        try {
            expected = Encodings.hex(hash, "the hash");
        } catch (IllegalArgumentException notHex) {
            throw new InvalidHashException(HASH, notHex.getMessage() + " (EMQX stores pbkdf2 keys as hex)");
        }
        if (dkLength != null && dkLength != expected.length) {
            throw new InvalidHashException(DK_LENGTH, "is " + dkLength + " but the hash holds " + expected.length
                    + " bytes");
        }
        byte[] saltBytes = salt == null ? new byte[0] : salt.getBytes(StandardCharsets.UTF_8);
        if (saltBytes.length > LegacyLimits.MAX_SALT_BYTES) {
            throw new InvalidHashException(SALT, "must be at most " + LegacyLimits.MAX_SALT_BYTES + " bytes");
        }
        return checked(HASH, () -> new Pbkdf2(scheme, iterations, saltBytes, expected));
    }

    /**
     * A mosquitto-go-auth PBKDF2 string (iegomez/mosquitto-go-auth {@code hashing/pbkdf2.go}, {@code Compare}):
     * {@code PBKDF2$<sha256|sha512>$<iterations>$<salt>$<base64 key>}, or the PHC-like
     * {@code $pbkdf2-sha512$i=<iterations>,l=<key length>$<salt>$<key>} (no padding). The salt is base64 unless the
     * plugin ran with {@code hasher_salt_encoding utf-8}, when it is the text itself: that setting is not in the
     * string, so the line says it ({@code salt_encoding}, default {@code base64} as the plugin's). The plugin hashes
     * with SHA-256 for {@code sha256} and SHA-512 for anything else; any other name is refused here.
     */
    public static LegacyHash mosquittoPbkdf2(String hash, String saltEncoding) {
        boolean utf8Salt;
        if (saltEncoding == null || saltEncoding.equals("base64")) {
            utf8Salt = false;
        } else if (saltEncoding.equals("utf-8")) {
            utf8Salt = true;
        } else {
            throw new InvalidHashException(SALT_ENCODING, "must be base64 (the default) or utf-8");
        }
        if (hash == null) {
            throw new InvalidHashException(HASH, "is required");
        }
        if (hash.startsWith("$7$") || hash.startsWith("$6$")) {
            // Mosquitto's own file, under the name that invites it; its salts are always base64.
            if (saltEncoding != null && !saltEncoding.equals("base64")) {
                throw new InvalidHashException(SALT_ENCODING, "does not apply to a mosquitto_passwd hash");
            }
            return mosquittoPasswd(hash);
        }
        String[] fields = hash.startsWith("$") ? hash.substring(1).split("\\$", -1) : hash.split("\\$", -1);
        PasswordScheme scheme;
        int iterations;
        String salt;
        String key;
        if (fields.length == 5 && fields[0].equals("PBKDF2")) {
            scheme = fields[1].equals("sha256") || fields[1].equals("sha512") ? Pbkdf2.schemeOf(fields[1]) : null;
            if (scheme == null) {
                throw new InvalidHashException(HASH, "the PBKDF2 string's algorithm must be sha256 or sha512");
            }
            iterations = count(fields[2]);
            salt = fields[3];
            key = fields[4];
        } else if (fields.length == 4 && fields[0].equals("pbkdf2-sha512")) {
            scheme = PasswordScheme.PBKDF2_SHA512;
            Integer i = null;
            Integer l = null;
            for (String option : fields[1].split(",", -1)) {
                if (option.startsWith("i=") && i == null) {
                    i = count(option.substring(2));
                } else if (option.startsWith("l=") && l == null) {
                    l = checked(HASH, () -> Encodings.count(option.substring(2), "l", LegacyLimits.MAX_KEY_BYTES));
                } else {
                    throw new InvalidHashException(HASH, "the pbkdf2-sha512 options are i=<iterations>,l=<length>");
                }
            }
            if (i == null || l == null) {
                throw new InvalidHashException(HASH, "the pbkdf2-sha512 options are i=<iterations>,l=<length>");
            }
            iterations = i;
            salt = fields[2];
            key = fields[3];
            int length = checked(HASH, () -> Encodings.base64(fields[3], "the key")).length;
            if (length != l) {
                throw new InvalidHashException(HASH, "l=" + l + " but the key holds " + length + " bytes");
            }
        } else {
            throw new InvalidHashException(HASH, "a mosquitto-go-auth PBKDF2 hash is PBKDF2$<alg>$<iterations>$<salt>$"
                    + "<key> or $pbkdf2-sha512$i=<iterations>,l=<length>$<salt>$<key>");
        }
        byte[] saltBytes = utf8Salt ? salt.getBytes(StandardCharsets.UTF_8)
                : checked(HASH, () -> Encodings.base64(salt, "the salt"));
        byte[] keyBytes = checked(HASH, () -> Encodings.base64(key, "the key"));
        return checked(HASH, () -> new Pbkdf2(scheme, iterations, saltBytes, keyBytes));
    }

    /** Mosquitto's own password file: the salt and hash lengths its broker accepts, nothing else. */
    static final int MOSQUITTO_SALT_BYTES = 12;
    static final int MOSQUITTO_HASH_BYTES = 64;

    /**
     * A hash from Mosquitto's own password file (the part after {@code user:} of a {@code mosquitto_passwd} line):
     * {@code $7$<iterations>$<base64 salt>$<base64 hash>}, PBKDF2-HMAC-SHA512 of the password with the decoded salt,
     * or {@code $6$<base64 salt>$<base64 hash>}, one SHA-512 of the password followed by the decoded salt
     * (eclipse/mosquitto {@code src/password_mosq.c}, {@code pw__hash}; the file format in
     * {@code apps/mosquitto_passwd/mosquitto_passwd.c}). The broker keeps a line only with a 12-byte salt and a
     * 64-byte hash ({@code src/security_default.c}, {@code unpwd__decode_passwords}): the same is required here, so a
     * line the broker itself would drop is refused rather than imported.
     */
    public static LegacyHash mosquittoPasswd(String hash) {
        if (hash == null) {
            throw new InvalidHashException(HASH, "is required");
        }
        String[] fields = hash.split("\\$", -1);
        boolean pbkdf2 = fields.length == 5 && fields[0].isEmpty() && fields[1].equals("7");
        boolean sha512 = fields.length == 4 && fields[0].isEmpty() && fields[1].equals("6");
        if (!pbkdf2 && !sha512) {
            throw new InvalidHashException(HASH, "a mosquitto_passwd hash is $7$<iterations>$<salt>$<hash>"
                    + " (PBKDF2-SHA512) or $6$<salt>$<hash> (SHA-512), salt and hash in base64");
        }
        byte[] salt = checked(HASH, () -> Encodings.base64(fields[fields.length - 2], "the salt"));
        byte[] key = checked(HASH, () -> Encodings.base64(fields[fields.length - 1], "the hash"));
        if (salt.length != MOSQUITTO_SALT_BYTES || key.length != MOSQUITTO_HASH_BYTES) {
            throw new InvalidHashException(HASH, "a mosquitto_passwd hash has a " + MOSQUITTO_SALT_BYTES
                    + "-byte salt and a " + MOSQUITTO_HASH_BYTES + "-byte hash (Mosquitto drops any other)");
        }
        if (pbkdf2) {
            int iterations = count(fields[2]);
            return checked(HASH, () -> new Pbkdf2(PasswordScheme.PBKDF2_SHA512, iterations, salt, key));
        }
        return checked(HASH, () -> new SaltedDigest(PasswordScheme.SALTED_SHA512, SaltedDigest.Position.SUFFIX,
                salt, key));
    }

    /** An argon2id PHC string as mosquitto-go-auth writes it ({@code hashing/argon2id.go}); see {@link Argon2id}. */
    public static LegacyHash argon2id(String hash) {
        if (hash == null) {
            throw new InvalidHashException(HASH, "is required");
        }
        return checked(HASH, () -> Argon2id.parse(hash));
    }

    private static int count(String text) {
        return checked(HASH, () -> Encodings.count(text, "the iterations", LegacyLimits.MAX_PBKDF2_ITERATIONS));
    }

    private static <T> T checked(String field, java.util.function.Supplier<T> parse) {
        try {
            return parse.get();
        } catch (InvalidHashException invalid) {
            throw invalid;
        } catch (IllegalArgumentException invalid) {
            throw new InvalidHashException(field, invalid.getMessage());
        }
    }
}
