package io.deviceidentity.credentials.legacy;

import org.jboss.logging.Logger;

import io.deviceidentity.credentials.Bcrypt;
import io.deviceidentity.credentials.PasswordPolicy;

/**
 * Verifies a password against a stored hash of any scheme: bcrypt through {@link Bcrypt}, the imported ones through
 * their {@link LegacyHash}. The same password rules hold for every scheme ({@link PasswordPolicy}: at most 72 UTF-8
 * bytes, since the row becomes bcrypt on its first successful login). A row that cannot be parsed (unknown scheme,
 * parameters beyond {@link LegacyLimits}: only ever written by hand) never matches, and is logged without its value.
 */
public final class StoredPasswords {

    private static final Logger LOG = Logger.getLogger(StoredPasswords.class);

    private StoredPasswords() {
    }

    /** {@code scheme} null means a column value this build does not know: never a match. */
    public static boolean matches(PasswordScheme scheme, String password, String stored) {
        if (scheme == PasswordScheme.BCRYPT) {
            return Bcrypt.matches(password, stored);
        }
        byte[] bytes = PasswordPolicy.usableBytes(password);
        if (bytes == null || scheme == null) {
            return false;
        }
        LegacyHash hash;
        try {
            hash = LegacyHash.parse(scheme, stored);
        } catch (IllegalArgumentException unusable) {
            LOG.warnf("a stored %s hash cannot be verified (%s): the device cannot log in until it is re-registered",
                    scheme.column(), unusable.getMessage());
            return false;
        }
        return hash.matches(bytes);
    }
}
