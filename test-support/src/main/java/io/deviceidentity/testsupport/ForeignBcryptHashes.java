package io.deviceidentity.testsupport;

import java.util.List;

/**
 * bcrypt hashes made by another implementation than the services' (Bouncy Castle), with their passwords: what a
 * fleet migrated from another broker's store brings. Produced with libxcrypt, the system crypt(3) of Debian
 * (libcrypt.so.1), through Perl's {@code crypt} builtin, e.g.
 * {@code perl -e 'print crypt("imported-2a-password", q{$2a$04$abcdefghijklmnopqrstuu})'}; the salts were chosen
 * by hand (22 characters, the last one of {@code .Oeu}, as every bcrypt salt ends). The first vector is also
 * OpenWall crypt_blowfish's published test vector for "U*U" (its wrapper.c), which libxcrypt reproduces.
 */
public final class ForeignBcryptHashes {

    /** One hash and the password it was made from. */
    public record Vector(String prefix, String hash, String password) {
        @Override
        public String toString() {
            return prefix + " (" + password.length() + " characters)";
        }
    }

    public static final Vector OPENWALL_2A = new Vector("$2a$",
            "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", "U*U");
    public static final Vector LIBXCRYPT_2A = new Vector("$2a$",
            "$2a$04$abcdefghijklmnopqrstuutPtR/MfA9ky5g79OPlVvSkpUaLA86mK", "imported-2a-password");
    public static final Vector LIBXCRYPT_2B = new Vector("$2b$",
            "$2b$05$ZYXWVUTSRQPONMLKJIHGFeZmzlpR5rxtgkkVcbZFXUcdXLivS0ZLW", "imported-2b-password");
    /** A non-ASCII password: both implementations hash its UTF-8 bytes. */
    public static final Vector LIBXCRYPT_2Y = new Vector("$2y$",
            "$2y$06$0123456789./abcdefghiOW.y2XMgAUz2.z9Ky6UKXby6wzNwlx6a", "p\u00e4ssw\u00f6rd-2y");
    /** A password of exactly 72 bytes, all of which bcrypt reads. */
    public static final Vector LIBXCRYPT_2B_72_BYTES = new Vector("$2b$",
            "$2b$04$Mix3dSaltMix3dSaltMix.GqIoBbHCWegW3txKi2A6afVWUuZcFC.",
            "0123456789abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789");

    public static final List<Vector> ALL = List.of(OPENWALL_2A, LIBXCRYPT_2A, LIBXCRYPT_2B, LIBXCRYPT_2Y,
            LIBXCRYPT_2B_72_BYTES);

    /**
     * Strings that must never be stored as a bcrypt hash, each with why. The cost-03 and cost-15 ones are otherwise
     * well formed.
     */
    public static final List<String> NOT_STORABLE = List.of(
            "$1$saltsalt$qjXMvbEw8oaL.CzflDtaK/", // md5crypt of "password" (libxcrypt)
            "$5$saltsalt$gOjOtoMpVhru2uyjeJSEc/JaLQWOXMNmlOnj6T4AtC.", // sha256crypt (libxcrypt)
            "$6$saltsalt$qFmFH.bQmmtXzyBY0s9v7Oicd2z4XSIecDzlB5KiA2/jctKu9YterLp8wwnSq.qc.eoxqOmSuNp2xS0ktL3nh/", // sha512crypt (libxcrypt)
            "$argon2id$v=19$m=65536,t=3,p=4$c2FsdHNhbHRzYWx0$2uPBAPuBczEUWEmTwc/c6Q2zNV7dU1UHl/uN0FxKvmE",
            "$2x$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", // crypt_blowfish's buggy variant
            "$2$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", // the original, 59 characters
            "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOe", // 59 characters
            "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeWW", // 61 characters
            "$2a$03$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", // cost 03
            "$2a$15$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", // cost 15
            "$2a$5$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeWW", // one-digit cost
            "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOe+", // '+' is standard base64, not bcrypt's
            "$2a$05$CCCCCCCCCCCCCCCCCCCCC_E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", // '_' passes Bouncy Castle's range check
            "$2a$05$CCCCCCCCCCCCCCCCCCCCC\u00e9E5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", // non-ASCII
            "$2a$05$CCCCCCCCCCCCCCCCCCCCCDE5YPO9kmyuRGyh0XouQYb4YMJKvyOeW", // salt's unused bits set
            "$2a$05$CCCCCCCCCCCCCCCCCCCCC.E5YPO9kmyuRGyh0XouQYb4YMJKvyOeX", // hash's unused bits set
            "5f4dcc3b5aa765d61d8327deb882cf99", // a bare MD5 digest
            "");

    private ForeignBcryptHashes() {
    }
}
