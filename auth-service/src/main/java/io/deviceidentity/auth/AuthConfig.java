package io.deviceidentity.auth;

import java.time.Duration;

import io.smallrye.config.ConfigMapping;
import io.smallrye.config.WithDefault;

/** auth-service settings beyond the shared overload control ({@code identity.overload.*}). */
@ConfigMapping(prefix = "identity.auth")
public interface AuthConfig {

    /**
     * Answer for a client id with no credential: {@code deny}, or {@code ignore} when EMQX's chain has a second
     * authenticator that should be asked. Never an overload answer.
     */
    @WithDefault("deny")
    UnknownDeviceResult unknownDevice();

    RateLimit rateLimit();

    /**
     * How long this replica remembers that a device was active, so that while bcrypt is saturated its next attempt is
     * refused (503 overload) before the database read. {@code 0s} reads first, always. See RecentlyActiveDevices.
     */
    @WithDefault("30s")
    Duration activeDeviceMemory();

    enum UnknownDeviceResult {
        deny,
        ignore
    }

    /**
     * Per-device attempt limit, a token bucket per client id: a brute-force and retry-storm guard that answers 429
     * before any bcrypt. The defaults let a device try 10 times in a burst and then 10 times a minute, far above a
     * device that reconnects at a sane pace.
     */
    interface RateLimit {
        @WithDefault("true")
        boolean enabled();

        /** Attempts a device may make in a burst, and per {@link #period()} after that. */
        @WithDefault("10")
        int attempts();

        @WithDefault("1m")
        Duration period();

        /** Devices whose buckets are kept in memory at once; the least recently seen are forgotten first. */
        @WithDefault("200000")
        long maxTrackedDevices();
    }
}
