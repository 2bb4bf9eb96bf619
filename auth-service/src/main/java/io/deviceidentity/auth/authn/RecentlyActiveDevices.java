package io.deviceidentity.auth.authn;

import java.time.Duration;
import java.util.function.LongSupplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import com.github.benmanes.caffeine.cache.Cache;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.ratelimit.BoundedCaches;

/**
 * Client ids this replica read as active whose check needed bcrypt (no usable fast-path verifier: none stored, or
 * under a key no longer known) and has not succeeded since: devices whose next attempt will need bcrypt again. A
 * device allowed by bcrypt or by the fast path is forgotten, and a wrong password against a stored verifier never
 * marks it (Authenticator), so a verified device is never refused here, whatever others guess under its id. While
 * bcrypt is saturated, such a device is refused before the database read, so that the refusals of a retry storm cost
 * no database round trip. Behind EMQX's few connections with pipelining 1, that round trip bounds how fast refusals
 * can be answered, and whatever is not answered waits in EMQX's queue.
 *
 * <p>How long a remembered read counts: {@code identity.auth.active-device-memory} (30 s) after the read, or after
 * the start of a later read of the registration epochs ({@link RegistrationEpochs}) that shows the device's bucket
 * unchanged since the read. Every registration, password change and revocation bumps its bucket in the same
 * transaction, so an unchanged bucket means the row read still holds as of that epochs read. A device that keeps
 * retrying through a storm longer than the memory is therefore not read again every 30 s: one shared epochs read
 * every half memory keeps all of them confirmed (started here, by a device remembered for more than half of it, or
 * read with epochs that old).
 * Without epochs (the unknown-device cache off, or none read yet when the row was read) an entry counts for the memory
 * after its read only. A row deleted by hand, which bumps nothing (the services never delete one), counts for at most
 * {@link #MAX_CONFIRMED_AGE}.
 *
 * <p>Only the refusal uses it: every allow and deny still reads the row, so revocation takes effect on the next
 * decision. A device revoked less than the memory before its retry (measured from the last confirmation), retrying
 * while bcrypt is saturated, gets 503 {@code overload} instead of deny (both reject it). Devices never seen active
 * (unknown ones) are not in it and are always read. Entries are bounded in number and idle time: the least recently
 * used are forgotten first.
 */
@ApplicationScoped
public class RecentlyActiveDevices {

    /** The longest an entry is trusted however often the epochs confirm it: bounds what no bump announces. */
    static final Duration MAX_CONFIRMED_AGE = Duration.ofMinutes(5);
    private static final long MAX_CONFIRMED_AGE_NANOS = MAX_CONFIRMED_AGE.toNanos();
    /** The epoch of an entry read before any epochs read had finished: counts for the memory only. */
    private static final long NO_EPOCH = Long.MIN_VALUE;

    private final long windowNanos;
    private final LongSupplier clock;
    private final RegistrationEpochs epochs;
    private final Cache<String, Seen> seen;

    /** A read that found the device active: when, and its bucket's epoch as known before the read began. */
    private record Seen(long atNanos, int bucket, long epoch) {
    }

    @Inject
    public RecentlyActiveDevices(AuthConfig config, RegistrationEpochs epochs) {
        this(config.activeDeviceMemory(), config.rateLimit().maxTrackedDevices(), System::nanoTime, epochs);
    }

    /** With its own clock (the epochs' clock too): tests run it on a virtual one. */
    public RecentlyActiveDevices(Duration window, long maxDevices, LongSupplier clock, RegistrationEpochs epochs) {
        this.windowNanos = window.toNanos();
        this.clock = clock;
        this.epochs = epochs;
        this.seen = BoundedCaches.bounded(maxDevices, window);
    }

    /**
     * A read found the device active with the username it presented, and its check needs bcrypt.
     * {@code epochsBeforeRead}: the epochs of a read that had finished before the row read began, or null.
     */
    public void seenActive(String clientId, long[] epochsBeforeRead) {
        if (windowNanos <= 0) {
            return;
        }
        int bucket = RegistrationEpochs.bucketOf(clientId);
        long now = clock.getAsLong();
        seen.put(clientId, new Seen(now, bucket, epochsBeforeRead == null ? NO_EPOCH : epochsBeforeRead[bucket]));
        if (epochsBeforeRead != null) {
            // Epochs read long before (the last read may predate a whole import) would fail every confirmation and
            // send the device back to the database once: the devices read from now on get fresh ones.
            epochs.refreshIfStartedBefore(now - windowNanos / 2);
        }
    }

    /** A read found the device unknown, revoked or presenting another username; or it was just allowed. */
    public void seenInactive(String clientId) {
        seen.invalidate(clientId);
    }

    /** Whether the device's last read, or a confirmation of it, is recent enough to refuse it without a read. */
    public boolean contains(String clientId) {
        Seen entry = seen.getIfPresent(clientId);
        if (entry == null) {
            return false;
        }
        long now = clock.getAsLong();
        long age = now - entry.atNanos();
        if (age <= windowNanos / 2) {
            return true;
        }
        if (entry.epoch() == NO_EPOCH || age > MAX_CONFIRMED_AGE_NANOS) {
            return age <= windowNanos;
        }
        // Remembered for more than half the memory: have a confirmation ready before the memory alone runs out.
        epochs.refreshIfStartedBefore(now - windowNanos / 2);
        if (age <= windowNanos) {
            return true;
        }
        RegistrationEpochs.Read latest = epochs.latestRead();
        return latest != null && now - latest.startedAt() <= windowNanos
                && latest.epochs()[entry.bucket()] == entry.epoch();
    }
}
