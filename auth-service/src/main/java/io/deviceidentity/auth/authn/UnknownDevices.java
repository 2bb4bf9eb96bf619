package io.deviceidentity.auth.authn;

import java.time.Duration;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import com.github.benmanes.caffeine.cache.Cache;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.auth.ratelimit.BoundedCaches;
import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * A bounded negative cache of client ids found unknown, which never delays a device registered a moment ago.
 *
 * <p>Each entry is (client id → the epoch of its bucket, from an epochs read that had <em>finished</em> before the row
 * read that found nothing began). A registration bumps its bucket's epoch in the same transaction that writes the row
 * (V3 trigger). A remembered id is answered unknown only after an epochs read that <em>started</em> after the request
 * arrived ({@link RegistrationEpochs#readStartedAfter}) shows the same epoch. Why that is exact: if the registration
 * committed before the row read's snapshot, the row read found the device (no entry); if after, its bump comes after the
 * remembered epoch; and a request that arrives after the registration was acknowledged waits for a read that started
 * after that commit, so it sees the bump, forgets the entry and reads the row. A read that fails leaves the request to
 * the row read.
 */
@ApplicationScoped
public class UnknownDevices {

    private static final Duration MEMORY = Duration.ofMinutes(10);

    private final RegistrationEpochs epochs;
    private final Cache<String, Long> unknown;
    private final boolean enabled;
    private final Counter hits;

    @Inject
    public UnknownDevices(AuthConfig config, RegistrationEpochs epochs, MeterRegistry registry) {
        this(config.unknownDeviceCache(), epochs, registry);
    }

    UnknownDevices(long maxEntries, RegistrationEpochs epochs, MeterRegistry registry) {
        this.epochs = epochs;
        this.enabled = maxEntries > 0;
        this.unknown = BoundedCaches.bounded(Math.max(1, maxEntries), MEMORY);
        this.hits = registry.counter(MetricNames.UNKNOWN_CACHE_HITS);
    }

    /** The epochs as known before a row read starts; pass them to {@link #foundUnknown} if it finds nothing. */
    public long[] epochsBeforeRead() {
        if (!enabled) {
            return null;
        }
        long[] latest = epochs.latest();
        if (latest == null) {
            epochs.warmUp();
        }
        return latest;
    }

    /** The row read that started after {@code epochsBeforeRead} returned {@code before} found no such device. */
    public void foundUnknown(String clientId, long[] before) {
        if (before != null) {
            unknown.put(clientId, before[RegistrationEpochs.bucketOf(clientId)]);
        }
    }

    /** The row read found the device. */
    public void foundKnown(String clientId) {
        unknown.invalidate(clientId);
    }

    /**
     * Completes with true when the id is remembered as unknown and no registration touched its bucket since: answer
     * it unknown without reading its row. False (read the row) when it is not remembered, when its bucket changed, or
     * when the epochs could not be read.
     */
    public CompletionStage<Boolean> stillUnknown(String clientId, long arrivalNanos) {
        Long remembered = enabled ? unknown.getIfPresent(clientId) : null;
        if (remembered == null) {
            return CompletableFuture.completedFuture(false);
        }
        return epochs.readStartedAfter(arrivalNanos).handle((current, failure) -> {
            if (current != null && current[RegistrationEpochs.bucketOf(clientId)] == remembered) {
                hits.increment();
                return true;
            }
            if (current != null) {
                unknown.invalidate(clientId);
            }
            return false;
        });
    }
}
