package io.deviceidentity.credentials.legacy;

/**
 * Bounds on the parameters of an imported hash. A hash's parameters are chosen by whoever wrote the old store, and
 * auth-service pays them on every cold check under the same admission as bcrypt: a PBKDF2 with 10^9 iterations
 * would hold a bcrypt thread for minutes, an argon2 with 4 GiB would exhaust the heap. Such rows are refused at
 * import (a 400 line naming the field), and a row that exceeds them anyway (written by hand) never verifies.
 *
 * <p>The bounds keep the most expensive accepted verification within about ten bcrypt times at cost 10 (measured
 * here with Bouncy Castle, one thread, as ratios within one run: PBKDF2-SHA512 at mosquitto-go-auth's default
 * 100 000 iterations ≈ 1.5 bcrypt, argon2id at its default m=4 MiB,t=3,p=2 ≈ 0.6, a salted SHA-256 ≈ 0.0002;
 * {@code make bench BENCH_ONLY=legacy-schemes}). 600 000 iterations is OWASP's recommendation for PBKDF2-HMAC-SHA256
 * (Password Storage Cheat Sheet), the most any anchor's documentation suggests. argon2id up to 32 MiB covers
 * mosquitto-go-auth's default (4 MiB) and OWASP's 19 MiB; each concurrent verification allocates its memory, so the
 * heap must hold bcrypt-concurrency × that. The bcrypt lane's admission measures the time its tasks really take
 * (a moving average), so a fleet of expensive rows lowers what it admits instead of overfilling its queue.
 */
public final class LegacyLimits {

    public static final int MAX_PBKDF2_ITERATIONS = 600_000;
    public static final int MAX_ARGON2_MEMORY_KIB = 32 * 1024;
    public static final int MAX_ARGON2_ITERATIONS = 10;
    public static final int MAX_ARGON2_PARALLELISM = 16;
    /** Salt and derived-key bytes: far above every anchor's default (16 and 32/64 bytes). */
    public static final int MAX_SALT_BYTES = 128;
    public static final int MIN_KEY_BYTES = 16;
    public static final int MAX_KEY_BYTES = 128;
    /** A stored value of {@code plain} (EMQX compares the salted password itself). */
    public static final int MAX_PLAIN_BYTES = 256;

    private LegacyLimits() {
    }
}
