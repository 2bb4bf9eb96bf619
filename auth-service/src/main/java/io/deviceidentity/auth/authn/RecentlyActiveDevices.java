package io.deviceidentity.auth.authn;

import java.time.Duration;
import java.util.function.LongSupplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import com.github.benmanes.caffeine.cache.Cache;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.ratelimit.BoundedCaches;

/**
 * Client ids this replica read as active within the last {@code identity.auth.active-device-memory} whose check
 * needed bcrypt (no usable fast-path verifier: none stored, or under a key no longer known) and has not succeeded
 * since: devices whose next attempt will need bcrypt again. A device allowed by bcrypt or by the fast path is
 * forgotten, and a wrong password against a stored verifier never marks it (Authenticator), so a verified device is
 * never refused here, whatever others guess under its id. While bcrypt is saturated, such a device is refused before the database read, so
 * that the refusals of a retry storm cost no database round trip. Behind EMQX's few connections with pipelining 1,
 * that round trip bounds how fast refusals can be answered, and whatever is not answered waits in EMQX's queue.
 *
 * <p>Only the refusal uses it: every allow and deny still reads the row, so revocation takes effect on the next
 * decision. A device revoked within the memory window, retrying while bcrypt is saturated, gets 503 {@code overload}
 * instead of deny (both reject it). Devices never seen active (unknown ones) are not in it and are always read.
 * Entries are bounded in number and age: the oldest are forgotten first, and a remembered moment older than the
 * window counts as forgotten.
 */
@ApplicationScoped
public class RecentlyActiveDevices {

    private final long windowNanos;
    private final LongSupplier clock;
    private final Cache<String, Long> seenAt;

    @Inject
    public RecentlyActiveDevices(AuthConfig config) {
        this(config.activeDeviceMemory(), config.rateLimit().maxTrackedDevices(), System::nanoTime);
    }

    /** With its own clock: tests run it on a virtual one. */
    public RecentlyActiveDevices(Duration window, long maxDevices, LongSupplier clock) {
        this.windowNanos = window.toNanos();
        this.clock = clock;
        this.seenAt = BoundedCaches.bounded(maxDevices, window);
    }

    /** A read found the device active with the username it presented, and its check needs bcrypt. */
    public void seenActive(String clientId) {
        if (windowNanos > 0) {
            seenAt.put(clientId, clock.getAsLong());
        }
    }

    /** A read found the device unknown, revoked or presenting another username; or it was just allowed. */
    public void seenInactive(String clientId) {
        seenAt.invalidate(clientId);
    }

    public boolean contains(String clientId) {
        Long at = seenAt.getIfPresent(clientId);
        return at != null && clock.getAsLong() - at <= windowNanos;
    }
}
