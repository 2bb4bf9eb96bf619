package io.deviceidentity.credentials.legacy;

import java.util.Arrays;
import java.util.Optional;

/**
 * How a stored password hash is verified: the value of {@code device_credentials.password_scheme} (V6). Every row
 * registered here is {@link #BCRYPT}; the others are hashes imported from another broker's store as they are
 * (docs/migration.md), verified by their own function and replaced by bcrypt on the device's first successful login.
 *
 * <p>The salted digests are EMQX's simple {@code password_hash_algorithm}s ({@code emqx_passwd:hash_data/2}) and
 * Mosquitto's {@code $6$} password-file hashes; the PBKDF2 ones cover EMQX's {@code pbkdf2} (any {@code mac_fun}),
 * mosquitto-go-auth's PBKDF2 strings and Mosquitto's {@code $7$}; argon2id is mosquitto-go-auth's PHC string. {@link #weak()} marks those whose stored value gives a database reader the
 * password at once or after one fast, unsalted (precomputable) hash: they are imported only when the import asks for
 * them explicitly.
 */
public enum PasswordScheme {
    BCRYPT("bcrypt", false),
    PLAIN("plain", true),
    MD5("md5", true),
    SALTED_MD5("salted-md5", true),
    SHA1("sha1", true),
    SALTED_SHA1("salted-sha1", false),
    SHA256("sha256", true),
    SALTED_SHA256("salted-sha256", false),
    SHA512("sha512", true),
    SALTED_SHA512("salted-sha512", false),
    PBKDF2_SHA1("pbkdf2-sha1", false),
    PBKDF2_SHA224("pbkdf2-sha224", false),
    PBKDF2_SHA256("pbkdf2-sha256", false),
    PBKDF2_SHA384("pbkdf2-sha384", false),
    PBKDF2_SHA512("pbkdf2-sha512", false),
    ARGON2ID("argon2id", false);

    private final String column;
    private final boolean weak;

    PasswordScheme(String column, boolean weak) {
        this.column = column;
        this.weak = weak;
    }

    /** The value stored in {@code password_scheme} and shown by the reports and metrics. */
    public String column() {
        return column;
    }

    /** Imported only with the import's explicit {@code allow_weak_schemes=true}. */
    public boolean weak() {
        return weak;
    }

    /** Verified by something else than bcrypt, and replaced by bcrypt on the first successful login. */
    public boolean legacy() {
        return this != BCRYPT;
    }

    /**
     * Whether a verification costs enough to need the bcrypt lane's admission: bcrypt, PBKDF2 and argon2id do
     * (measured: 0.6 to 1.5 bcrypt times at their anchors' defaults, LegacyLimits); a salted digest costs a few
     * microseconds, less than parsing the request, and is verified where the request is (measured ≈ 0.0002 bcrypt).
     * Keeping those out of the bcrypt lane also keeps its moving average of hash time a bcrypt's: a run of
     * microsecond tasks would otherwise make it admit a storm of bcrypt as if each took nothing.
     */
    public boolean needsHashLane() {
        return switch (this) {
            case BCRYPT, PBKDF2_SHA1, PBKDF2_SHA224, PBKDF2_SHA256, PBKDF2_SHA384, PBKDF2_SHA512, ARGON2ID -> true;
            default -> false;
        };
    }

    public static Optional<PasswordScheme> fromColumn(String column) {
        return Arrays.stream(values()).filter(scheme -> scheme.column.equals(column)).findFirst();
    }

    /** A column value this build does not know (a newer schema) verifies nothing: read as a mismatch. */
    public static PasswordScheme fromStoredColumn(String column) {
        return column == null ? BCRYPT : fromColumn(column).orElse(null);
    }
}
