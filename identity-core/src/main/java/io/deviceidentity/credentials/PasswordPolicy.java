package io.deviceidentity.credentials;

import java.nio.charset.StandardCharsets;

/**
 * Which passwords may be stored and checked.
 *
 * <p>bcrypt only reads the first 72 bytes of its input. Libraries that silently truncate let any password that
 * shares those 72 bytes log in, so a longer password is refused at registration and denied at authentication
 * instead of being cut.
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
        byte[] bytes = password.getBytes(StandardCharsets.UTF_8);
        return bytes.length <= MAX_BYTES ? bytes : null;
    }

    public static boolean isUsable(String password) {
        return usableBytes(password) != null;
    }

    /** Why a password is refused, for a 4xx message; never echoes the password. */
    public static String problem(String password) {
        if (password == null || password.isEmpty()) {
            return "password must not be empty";
        }
        return isUsable(password) ? null : "password must be at most " + MAX_BYTES + " UTF-8 bytes";
    }
}
