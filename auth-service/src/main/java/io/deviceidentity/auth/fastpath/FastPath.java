package io.deviceidentity.auth.fastpath;

import java.security.MessageDigest;
import java.util.EnumMap;
import java.util.Map;

import jakarta.enterprise.context.ApplicationScoped;

import io.deviceidentity.auth.AuthConfig;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.credentials.StoredVerifier;
import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.quarkus.runtime.Startup;

/**
 * The verified-credential fast path: a device whose stored verifier matches the credential it presents now is
 * allowed without bcrypt. The row is read as always (one query, verifier included), so status, username and password
 * changes take effect on the very next check; only the hash is skipped.
 *
 * <p>Built at start-up so that a missing or malformed key set stops the service instead of failing its first
 * request.
 */
@ApplicationScoped
@Startup
public class FastPath {

    /** The outcome of looking at a stored verifier. Every value but the two {@code VERIFIED} ones means bcrypt. */
    public enum Check {
        VERIFIED,
        /** Matched under a key that is still known but no longer current: allowed, and re-written. */
        VERIFIED_UNDER_OLD_KEY,
        NO_VERIFIER,
        UNKNOWN_KEY,
        MISMATCH,
        /** The fast path is switched off. */
        OFF;

        public boolean allows() {
            return this == VERIFIED || this == VERIFIED_UNDER_OLD_KEY;
        }
    }

    private final boolean enabled;
    private final VerifierKeys keys;
    private final VerifierWriter writer;
    private final Counter allows;
    private final Map<Check, Counter> fallbacks = new EnumMap<>(Check.class);

    public FastPath(AuthConfig config, VerifierWriter writer, MeterRegistry registry) {
        this.enabled = config.fastPath().enabled();
        this.writer = writer;
        if (enabled) {
            String keySet = config.fastPath().keys().filter(value -> !value.isBlank()).orElseThrow(() ->
                    new IllegalStateException("the fast path is on but has no keys: set identity.auth.fast-path.keys"
                            + " (env IDENTITY_AUTH_FAST_PATH_KEYS) or switch it off with"
                            + " identity.auth.fast-path.enabled=false"));
            this.keys = VerifierKeys.parse(keySet, config.fastPath().currentKey());
        } else {
            this.keys = null;
        }
        Gauge.builder(MetricNames.FASTPATH_ENABLED, () -> enabled ? 1 : 0).register(registry);
        this.allows = registry.counter(MetricNames.FASTPATH_ALLOWS);
        for (Check cause : new Check[] { Check.NO_VERIFIER, Check.UNKNOWN_KEY, Check.MISMATCH }) {
            fallbacks.put(cause, registry.counter(MetricNames.FASTPATH_FALLBACKS,
                    MetricNames.TAG_CAUSE, cause.name().toLowerCase()));
        }
    }

    public boolean enabled() {
        return enabled;
    }

    /**
     * Looks at the verifier read with {@code device} (active, username already matched). {@code password} is the
     * presented password's UTF-8 bytes, as bcrypt would check them.
     */
    public Check check(String clientId, String username, byte[] password, DeviceCredential device) {
        if (!enabled) {
            return Check.OFF;
        }
        Check check = compare(clientId, username, password, device);
        if (check.allows()) {
            allows.increment();
        } else {
            fallbacks.get(check).increment();
        }
        return check;
    }

    private Check compare(String clientId, String username, byte[] password, DeviceCredential device) {
        StoredVerifier stored = device.verifier();
        if (stored == null) {
            return Check.NO_VERIFIER;
        }
        VerifierKey key = keys.byId(stored.keyId());
        if (key == null) {
            return Check.UNKNOWN_KEY;
        }
        byte[] expected = Verifiers.mac(key, clientId, username, password, device.passwordHash());
        if (!MessageDigest.isEqual(expected, stored.mac())) {
            return Check.MISMATCH;
        }
        return key == keys.current() ? Check.VERIFIED : Check.VERIFIED_UNDER_OLD_KEY;
    }

    /**
     * Records a verifier under the current key for a credential that has just been proven right (by bcrypt, or by a
     * verifier under an older key). Never blocks: the write is queued and may be dropped.
     */
    public void remember(String clientId, String username, byte[] password, DeviceCredential device) {
        if (!enabled) {
            return;
        }
        VerifierKey key = keys.current();
        writer.offer(new VerifierWriter.Write(clientId, device.passwordHash(), key.id(),
                Verifiers.mac(key, clientId, username, password, device.passwordHash())));
    }
}
