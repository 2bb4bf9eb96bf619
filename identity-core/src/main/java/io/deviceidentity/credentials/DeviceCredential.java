package io.deviceidentity.credentials;

import java.time.Instant;
import java.util.List;

/**
 * A device's stored credential. {@code acl} is empty when the device uses the default rules.
 * {@code passwordHash} never leaves the services: no answer and no log carries it. {@code verifier} is the fast
 * path's stored verifier, null when there is none or when it was not read.
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
        StoredVerifier verifier) {

    public boolean isActive() {
        return status == DeviceStatus.ACTIVE;
    }

    @Override
    public String toString() {
        // Records print every component; the hash must not reach a log by accident.
        return "DeviceCredential[clientId=" + clientId + ", status=" + status + ", superuser=" + superuser + "]";
    }
}
