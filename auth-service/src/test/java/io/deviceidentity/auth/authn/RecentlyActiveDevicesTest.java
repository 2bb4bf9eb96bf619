package io.deviceidentity.auth.authn;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.micrometer.core.instrument.simple.SimpleMeterRegistry;

/** The memory of devices whose check needed bcrypt, on a virtual clock, with epoch reads the test completes by hand. */
class RecentlyActiveDevicesTest {

    private static final Duration MEMORY = Duration.ofSeconds(30);
    private static final String DEVICE = "device-1";
    private static final int BUCKET = RegistrationEpochs.bucketOf(DEVICE);

    private final AtomicLong now = new AtomicLong(1_000);
    private final List<CompletableFuture<long[]>> epochReads = new ArrayList<>();
    private final RegistrationEpochs epochs = new RegistrationEpochs(() -> {
        CompletableFuture<long[]> read = new CompletableFuture<>();
        epochReads.add(read);
        return read;
    }, now::get, new SimpleMeterRegistry());
    private final RecentlyActiveDevices devices = new RecentlyActiveDevices(MEMORY, 1000, now::get, epochs);

    /** As in a running service: the epochs were read once (at the first request), just now. */
    @BeforeEach
    void epochsReadOnce() {
        epochs.warmUp();
        epochReads.remove(0).complete(epochsWith(7));
    }

    @Test
    void withoutEpochsADeviceReadAsActiveIsRememberedForTheMemoryOnly() {
        devices.seenActive(DEVICE, null);
        advance(Duration.ofSeconds(30));
        assertTrue(devices.contains(DEVICE));

        now.addAndGet(1);
        assertFalse(devices.contains(DEVICE));
        assertTrue(epochReads.isEmpty(), "nothing to confirm it with: no epochs read");
    }

    @Test
    void aDeviceRetryingThroughALongStormIsConfirmedByOneSharedEpochsReadEveryHalfMemory() {
        devices.seenActive(DEVICE, epochsWith(7));
        devices.seenActive("device-2", epochsWith(7));

        advance(Duration.ofSeconds(12));
        assertTrue(devices.contains(DEVICE));
        assertTrue(epochReads.isEmpty(), "within half the memory the row read alone counts");

        advance(Duration.ofSeconds(12)); // 24 s after the read
        assertTrue(devices.contains(DEVICE));
        assertTrue(devices.contains("device-2"));
        assertEquals(1, epochReads.size(), "one epochs read for every device remembered that long");
        epochReads.get(0).complete(epochsWith(7));

        advance(Duration.ofSeconds(12)); // 36 s after the row read, 12 s after the epochs read started
        assertTrue(devices.contains(DEVICE), "confirmed: its bucket did not change, so the row read still holds");
        assertEquals(1, epochReads.size());

        advance(Duration.ofSeconds(12)); // 48 s: the confirmation is 24 s old, a new one starts
        assertTrue(devices.contains(DEVICE));
        assertEquals(2, epochReads.size());
        epochReads.get(1).complete(epochsWith(7));

        advance(Duration.ofSeconds(12)); // 60 s
        assertTrue(devices.contains(DEVICE));
    }

    @Test
    void aDeviceReadWithEpochsOlderThanHalfTheMemoryStartsAFreshEpochsReadForTheDevicesReadAfterIt() {
        devices.seenActive(DEVICE, epochs.latest());
        assertTrue(epochReads.isEmpty(), "the epochs are fresh");
        advance(Duration.ofMinutes(10)); // the service was quiet; registrations may have bumped every bucket since

        devices.seenActive(DEVICE, epochs.latest());

        assertEquals(1, epochReads.size(), "a fresh read, not waited for");
        devices.seenActive("device-2", epochs.latest());
        assertEquals(1, epochReads.size(), "one in flight at a time");
    }

    @Test
    void aBumpOfItsBucketEndsTheMemoryOnceTheRowReadIsOlderThanTheMemory() {
        devices.seenActive(DEVICE, epochsWith(7));
        advance(Duration.ofSeconds(20));
        assertTrue(devices.contains(DEVICE));
        epochReads.get(0).complete(epochsWith(8)); // a registration, password change or revocation in its bucket

        advance(Duration.ofSeconds(10));
        assertTrue(devices.contains(DEVICE), "the row read alone still counts for the memory");
        advance(Duration.ofSeconds(1));
        assertFalse(devices.contains(DEVICE), "past the memory, the changed bucket sends it to the database");
    }

    @Test
    void aConfirmationOlderThanTheMemoryConfirmsNothing() {
        devices.seenActive(DEVICE, epochsWith(7));
        advance(Duration.ofSeconds(20));
        devices.contains(DEVICE);
        epochReads.get(0).complete(epochsWith(7)); // started 20 s after the row read

        advance(Duration.ofSeconds(31)); // 51 s after the row read, 31 s after the epochs read started
        assertFalse(devices.contains(DEVICE), "the epochs read is itself older than the memory");
    }

    @Test
    void noConfirmationKeepsADeviceBeyondTheMaximumAge() {
        devices.seenActive(DEVICE, epochsWith(7));
        long limit = RecentlyActiveDevices.MAX_CONFIRMED_AGE.toNanos();
        while (now.get() - 1_000 < limit) {
            advance(Duration.ofSeconds(12));
            boolean remembered = devices.contains(DEVICE);
            epochReads.stream().filter(read -> !read.isDone()).forEach(read -> read.complete(epochsWith(7)));
            if (now.get() - 1_000 <= limit) {
                assertTrue(remembered, "confirmed every 12 s up to the maximum age");
            }
        }
        advance(Duration.ofSeconds(12));
        assertFalse(devices.contains(DEVICE), "a row deleted by hand bumps nothing: the age bounds it");
    }

    @Test
    void aReadThatFindsTheDeviceInactiveForgetsItAtOnce() {
        devices.seenActive("device-2", epochsWith(7));

        devices.seenInactive("device-2");

        assertFalse(devices.contains("device-2"));
    }

    @Test
    void aDeviceNeverReadIsNotRememberedAndAZeroMemoryRemembersNothing() {
        assertFalse(devices.contains("never-seen"));
        RecentlyActiveDevices off = new RecentlyActiveDevices(Duration.ZERO, 1000, now::get, epochs);

        off.seenActive("device-3", epochsWith(7));

        assertFalse(off.contains("device-3"));
    }

    private void advance(Duration duration) {
        now.addAndGet(duration.toNanos());
    }

    /** Epochs with {@code epoch} in the device's bucket (and elsewhere: only its own bucket may matter). */
    private static long[] epochsWith(long epoch) {
        long[] epochs = new long[RegistrationEpochs.BUCKETS];
        java.util.Arrays.fill(epochs, 100);
        epochs[BUCKET] = epoch;
        return epochs;
    }
}
