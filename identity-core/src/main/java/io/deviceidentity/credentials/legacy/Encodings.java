package io.deviceidentity.credentials.legacy;

import java.util.Base64;
import java.util.HexFormat;

/** Decoding of imported and stored hash fields, with errors that name the field and never quote it. */
final class Encodings {

    private Encodings() {
    }

    /** Standard base64, with or without padding (mosquitto-go-auth writes both, EMQX none). */
    static byte[] base64(String text, String field) {
        try {
            return Base64.getDecoder().decode(text);
        } catch (IllegalArgumentException notBase64) {
            throw new IllegalArgumentException(field + " is not base64");
        }
    }

    /** Hex in either case: EMQX writes lowercase and compares caseless ({@code compare_secure_caseless}). */
    static byte[] hex(String text, String field) {
        if (text.length() % 2 != 0) {
            throw new IllegalArgumentException(field + " is not hex (odd length)");
        }
        try {
            return HexFormat.of().parseHex(text);
        } catch (IllegalArgumentException notHex) {
            throw new IllegalArgumentException(field + " is not hex");
        }
    }

    /** A decimal count in 1..max, for the error of the field that carries it. */
    static int count(String text, String field, int max) {
        if (text == null || text.isEmpty() || text.length() > 10 || !text.chars().allMatch(Character::isDigit)) {
            throw new IllegalArgumentException(field + " must be a whole number from 1 to " + max);
        }
        long value = Long.parseLong(text);
        if (value < 1 || value > max) {
            throw new IllegalArgumentException(field + " must be a whole number from 1 to " + max);
        }
        return (int) value;
    }
}
