package io.deviceidentity.auth.authn;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import com.github.benmanes.caffeine.cache.Cache;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.ratelimit.BoundedCaches;

/**
 * Client ids this replica read as active devices within {@code identity.auth.known-device-memory}: their reads may use
 * the whole database lane ({@link io.deviceidentity.overload.Share#KNOWN}), so a flood of invented ids,
 * which can never be in here, cannot take the threads the fleet's reconnects need. Being known decides only where the
 * read runs, never the answer: every check still reads the row. Bounded in number; the least recently seen go first.
 */
@ApplicationScoped
public class KnownDevices {

    private final Cache<String, Boolean> known;

    @Inject
    public KnownDevices(AuthConfig config) {
        this.known = BoundedCaches.bounded(config.rateLimit().maxTrackedDevices(), config.knownDeviceMemory());
    }

    public boolean contains(String clientId) {
        return known.getIfPresent(clientId) != null;
    }

    /** The read found the device active. */
    public void seenActive(String clientId) {
        known.put(clientId, Boolean.TRUE);
    }

    /** The read found no device, or a revoked one. */
    public void seenMissing(String clientId) {
        known.invalidate(clientId);
    }
}
