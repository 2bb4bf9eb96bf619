package io.deviceidentity.credentials;

import java.nio.ByteBuffer;
import java.nio.CharBuffer;
import java.nio.charset.CharacterCodingException;
import java.nio.charset.CodingErrorAction;
import java.nio.charset.StandardCharsets;

/**
 * Which passwords may be stored and checked.
 *
 * <p>bcrypt only reads the first 72 bytes of its input. Libraries that silently truncate let any password that
 * shares those 72 bytes log in, so a longer password is refused at registration and denied at authentication
 * instead of being cut. A password that is not valid Unicode (an unpaired surrogate, which a JSON escape
 * can carry) is refused too: Java's lenient encoder would turn it into {@code ?}, so two different passwords would
 * have the same bytes, for bcrypt and for the fast path's verifier alike.
 */
public final class PasswordPolicy {

    /** bcrypt's input limit, in UTF-8 bytes. */
    public static final int MAX_BYTES = 72;

    private PasswordPolicy() {
    }

    /** The password's UTF-8 bytes if it may be used with bcrypt, otherwise {@code null}. */
    public static byte[] usableBytes(String password) {
        if (password == null || password.isEmpty()) {
            return null;
        }
        byte[] bytes = strictUtf8(password);
        return bytes != null && bytes.length <= MAX_BYTES ? bytes : null;
    }

    public static boolean isUsable(String password) {
        return usableBytes(password) != null;
    }

    /** Why a password is refused, for a 4xx message; never echoes the password. */
    public static String problem(String password) {
        if (password == null || password.isEmpty()) {
            return "password must not be empty";
        }
        if (strictUtf8(password) == null) {
            return "password must be valid Unicode text";
        }
        return isUsable(password) ? null : "password must be at most " + MAX_BYTES + " UTF-8 bytes";
    }

    private static byte[] strictUtf8(String text) {
        try {
            ByteBuffer encoded = StandardCharsets.UTF_8.newEncoder()
                    .onMalformedInput(CodingErrorAction.REPORT)
                    .onUnmappableCharacter(CodingErrorAction.REPORT)
                    .encode(CharBuffer.wrap(text));
            byte[] bytes = new byte[encoded.remaining()];
            encoded.get(bytes);
            return bytes;
        } catch (CharacterCodingException e) {
            return null;
        }
    }
}
