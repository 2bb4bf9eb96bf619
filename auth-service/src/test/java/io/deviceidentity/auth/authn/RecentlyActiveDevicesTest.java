package io.deviceidentity.auth.authn;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;

import org.junit.jupiter.api.Test;

class RecentlyActiveDevicesTest {

    private final AtomicLong now = new AtomicLong();
    private final RecentlyActiveDevices devices = new RecentlyActiveDevices(Duration.ofSeconds(30), 1000, now::get);

    @Test
    void aDeviceReadAsActiveIsRememberedForTheWindowOnly() {
        devices.seenActive("device-1");
        now.addAndGet(Duration.ofSeconds(30).toNanos());
        assertTrue(devices.contains("device-1"));

        now.addAndGet(1);
        assertFalse(devices.contains("device-1"));
    }

    @Test
    void aReadThatFindsTheDeviceInactiveForgetsItAtOnce() {
        devices.seenActive("device-2");

        devices.seenInactive("device-2");

        assertFalse(devices.contains("device-2"));
    }

    @Test
    void aDeviceNeverReadIsNotRememberedAndAZeroWindowRemembersNothing() {
        assertFalse(devices.contains("never-seen"));
        RecentlyActiveDevices off = new RecentlyActiveDevices(Duration.ZERO, 1000, now::get);

        off.seenActive("device-3");

        assertFalse(off.contains("device-3"));
    }
}
