package io.deviceidentity.auth;

import java.time.Duration;
import java.util.Optional;

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
     * How long this replica remembers that a device's check needed bcrypt (active, but no matching verifier), so that
     * while bcrypt is saturated its next attempt is refused (503 overload) before the database read. A device allowed
     * since (by bcrypt or the fast path) is forgotten. {@code 0s} reads first, always. See RecentlyActiveDevices.
     */
    @WithDefault("30s")
    Duration activeDeviceMemory();

    FastPath fastPath();

    /**
     * Longest life of an MQTT session this service allows: every allow carries {@code expire_at} (Unix seconds), at
     * which EMQX disconnects the device (MQTT 5: DISCONNECT 0x87), whatever happens to a kick. Each answer takes a
     * random 0..10 % off, so that devices that connected together (after a storm) do not all reconnect together.
     * {@code 0s}: no {@code expire_at}, sessions last until the device or a kick ends them. Otherwise at least 1m
     * (EMQX refuses an {@code expire_at} in the past, so clock skew needs room). Default 24h (SessionLife).
     */
    @WithDefault("24h")
    Duration maxSessionLife();

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

    /**
     * The verified-credential fast path (docs/security.md): after a successful bcrypt check a verifier, an
     * HMAC-SHA256 under a key that is not in the database, is stored with the credential; a later check with the same
     * credential and password matches it and is allowed without bcrypt.
     */
    interface FastPath {
        /** Off: pure bcrypt, no verifier read or written. */
        @WithDefault("true")
        boolean enabled();

        /**
         * The key set, {@code id:base64key} pairs separated by commas (env {@code IDENTITY_AUTH_FAST_PATH_KEYS}, from a
         * Secret). Ids are 1..32 of {@code A-Z a-z 0-9 . _ -}; keys at least 32 random bytes. A verifier under an id
         * that is not listed is ignored (bcrypt, then re-written under the current key). Required while enabled: the
         * service does not start without it.
         */
        Optional<String> keys();

        /** The id new verifiers are written under. Optional when the set has a single key. */
        Optional<String> currentKey();

        /**
         * Verifier writes waiting for the writer; when full, a write is dropped and counted (the device pays bcrypt
         * once more on its next connect). Never in the request's path.
         */
        @WithDefault("1000")
        int writeQueue();

        /** A write that waited longer than this is dropped: it is stale, and a queue must stay short. */
        @WithDefault("5s")
        Duration writeMaxWait();
    }
}
