package io.deviceidentity.registration.passwords;

import java.util.stream.Collectors;
import java.util.stream.IntStream;

import io.deviceidentity.registration.imports.LegacyImportLines;

/**
 * Which ready-made bcrypt hashes may be stored as they are ({@code password_hash} on PUT and in an import).
 *
 * <p>Only the exact modular-crypt shape that auth-service's verifier (Bouncy Castle's {@code OpenBSDBCrypt},
 * {@code doCheckPassword}) checks correctly: {@code $2a$}, {@code $2b$} or {@code $2y$}; a two-digit cost; a
 * 22-character salt and a 31-character hash in bcrypt's own base64 alphabet ({@code ./A-Za-z0-9}), 60 characters in
 * all. Bouncy Castle also accepts {@code $2$} and {@code $2x$}, but {@code $2x$} marks hashes of crypt_blowfish's
 * pre-2011 sign-extension bug, which it does not reproduce, so those devices could never log in: refused here.
 *
 * <p>The salt encodes 128 bits in 22 characters and the hash 184 bits in 31, so the last character of each carries
 * unused bits that every implementation leaves zero (the salt ends in one of {@code .Oeu}). A hash with them set
 * is not one any bcrypt produced: the verifier re-encodes what it decodes and the string would never match, so the
 * device would be silently locked out. Refused too.
 *
 * <p>Cost 04..14: cost 15 and above takes over a second per check on one core in Java, far beyond what
 * auth-service's capacity and its 4 s deadline are sized for (every step doubles it).
 *
 * <p>Messages never echo the hash.
 */
public final class BcryptHashFormat {

    public static final int LENGTH = 60;
    public static final int MIN_COST = 4;
    public static final int MAX_COST = 14;

    private static final String ALPHABET = "./ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789";
    private static final int SALT_START = 7;
    private static final int HASH_START = SALT_START + 22;

    /**
     * The shape {@link #problem} checks, as a regular expression matched in full (the OpenAPI document publishes it
     * anchored): prefix, a cost of {@code MIN_COST..MAX_COST}, then the salt and hash in the alphabet. The unused
     * bits are beyond a pattern; {@link #problem} checks them too.
     */
    public static final String PATTERN = "\\$2[aby]\\$(" + IntStream.rangeClosed(MIN_COST, MAX_COST)
            .mapToObj(cost -> String.format("%02d", cost)).collect(Collectors.joining("|")) + ")\\$[./A-Za-z0-9]{"
            + (LENGTH - SALT_START) + "}";

    private BcryptHashFormat() {
    }

    /** Why {@code hash} cannot be stored, for a 400 naming {@code field}; {@code null} when it can. */
    public static String problem(String field, String hash) {
        String shape = "field '" + field + "' must be a bcrypt hash: $2a$, $2b$ or $2y$, a two-digit cost "
                + String.format("%02d..%02d", MIN_COST, MAX_COST) + ", then 53 characters of ./A-Za-z0-9 ("
                + LENGTH + " characters in all)";
        if (hash == null || !(hash.startsWith("$2a$") || hash.startsWith("$2b$") || hash.startsWith("$2y$"))) {
            // Not "cannot be imported": most other brokers' hashes can, by an import line naming their scheme.
            return "field '" + field + "' is not a bcrypt hash ($2a$, $2b$ or $2y$); a hash of another scheme is"
                    + " imported by POST /v1/device-imports with 'password_scheme' naming it: "
                    + LegacyImportLines.legacySchemes();
        }
        if (hash.length() != LENGTH) {
            return shape + "; this one has " + hash.length() + " characters";
        }
        if (hash.charAt(6) != '$' || !isDigit(hash.charAt(4)) || !isDigit(hash.charAt(5))) {
            return shape;
        }
        int cost = Integer.parseInt(hash.substring(4, 6));
        if (cost < MIN_COST || cost > MAX_COST) {
            return "field '" + field + "' has bcrypt cost " + hash.substring(4, 6) + "; accepted are "
                    + String.format("%02d..%02d", MIN_COST, MAX_COST);
        }
        for (int i = SALT_START; i < LENGTH; i++) {
            if (ALPHABET.indexOf(hash.charAt(i)) < 0) {
                return shape + "; it has a character outside that alphabet";
            }
        }
        // Unused low bits of the last salt character (4 of them) and of the last hash character (2).
        if ((ALPHABET.indexOf(hash.charAt(HASH_START - 1)) & 0x0f) != 0
                || (ALPHABET.indexOf(hash.charAt(LENGTH - 1)) & 0x03) != 0) {
            return "field '" + field + "' is not a hash any bcrypt implementation produces (the unused bits of its"
                    + " salt or hash are set), so no password would ever match it";
        }
        return null;
    }

    private static boolean isDigit(char c) {
        return c >= '0' && c <= '9';
    }
}
