package io.deviceidentity.credentials;

import java.time.Instant;
import java.util.List;

import io.deviceidentity.credentials.legacy.PasswordScheme;

/**
 * A device's stored credential. {@code acl} is empty when the device uses the default rules.
 * {@code passwordHash} never leaves the services: no answer and no log carries it. {@code verifier} is the fast
 * path's stored verifier, null when there is none or when it was not read. {@code passwordScheme} is how
 * {@code passwordHash} is verified: {@link PasswordScheme#BCRYPT} for every row registered here, another for a hash
 * imported as it was, null for a scheme this build does not know (it never verifies).
 */
public record DeviceCredential(
        String clientId,
        String username,
        String passwordHash,
        DeviceStatus status,
        boolean superuser,
        List<AclRule> acl,
        Instant createdAt,
        Instant updatedAt,
        StoredVerifier verifier,
        PasswordScheme passwordScheme) {

    /** A bcrypt row (every row registered here). */
    public DeviceCredential(String clientId, String username, String passwordHash, DeviceStatus status,
            boolean superuser, List<AclRule> acl, Instant createdAt, Instant updatedAt, StoredVerifier verifier) {
        this(clientId, username, passwordHash, status, superuser, acl, createdAt, updatedAt, verifier,
                PasswordScheme.BCRYPT);
    }

    /** Holds a hash imported as it was, to be replaced by bcrypt on the first successful login. */
    public boolean legacy() {
        return passwordScheme != PasswordScheme.BCRYPT;
    }

    /** The same device once its hash is {@code bcryptHash} (after a legacy upgrade), without a verifier. */
    public DeviceCredential withBcrypt(String bcryptHash) {
        return new DeviceCredential(clientId, username, bcryptHash, status, superuser, acl, createdAt, updatedAt, null,
                PasswordScheme.BCRYPT);
    }

    public boolean isActive() {
        return status == DeviceStatus.ACTIVE;
    }

    @Override
    public String toString() {
        // Records print every component; the hash must not reach a log by accident.
        return "DeviceCredential[clientId=" + clientId + ", status=" + status + ", superuser=" + superuser + "]";
    }
}
