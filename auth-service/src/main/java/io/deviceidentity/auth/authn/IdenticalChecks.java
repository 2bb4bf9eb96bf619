package io.deviceidentity.auth.authn;

import java.security.SecureRandom;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionStage;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Function;
import java.util.function.Supplier;

import javax.crypto.spec.SecretKeySpec;

import jakarta.enterprise.context.ApplicationScoped;

import io.deviceidentity.auth.fastpath.Verifiers;
import io.deviceidentity.credentials.DeviceCredential;
import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Single-flight for cold checks: identical checks in flight at once (same client id, username, password and stored
 * bcrypt string) share one bcrypt. A storm of one device's retries, or EMQX re-sending a CONNECT, costs one hash.
 *
 * <p>The key is an HMAC of exactly the fields a verifier covers, under a random key of this process: it never holds
 * the password, and two different passwords share a key only if HMAC-SHA256 collides. A check that arrives after the
 * shared one has finished starts its own (by then the verifier is usually written and it needs none).
 */
@ApplicationScoped
public class IdenticalChecks {

    private final SecretKeySpec processKey;
    private final Map<Key, CompletableFuture<Boolean>> inFlight = new ConcurrentHashMap<>();
    private final Counter joined;

    public IdenticalChecks(MeterRegistry registry) {
        byte[] secret = new byte[32];
        new SecureRandom().nextBytes(secret);
        this.processKey = new SecretKeySpec(secret, "HmacSHA256");
        this.joined = registry.counter(MetricNames.BCRYPT_JOINED);
        registry.gaugeMapSize(MetricNames.BCRYPT_FLIGHTS, List.of(), inFlight);
    }

    /**
     * The result of {@code hash} for this credential and password, shared with an identical check in flight if there
     * is one (then {@code hash} is not called). Each caller gets its own dependent stage, so one caller's deadline
     * cannot cancel the others'.
     */
    public CompletionStage<Boolean> check(String clientId, String username, byte[] password, DeviceCredential device,
            Supplier<CompletionStage<Boolean>> hash) {
        Key key = new Key(Verifiers.flightKey(processKey, clientId, username,
                password, device.passwordHash()));
        CompletableFuture<Boolean> mine = new CompletableFuture<>();
        CompletableFuture<Boolean> running = inFlight.putIfAbsent(key, mine);
        if (running != null) {
            joined.increment();
            return running.thenApply(Function.identity());
        }
        CompletionStage<Boolean> started;
        try {
            started = hash.get();
        } catch (RuntimeException e) {
            inFlight.remove(key, mine);
            mine.completeExceptionally(e);
            return mine.thenApply(Function.identity());
        }
        started.whenComplete((matches, failure) -> {
            // Out of the map before anyone is told, so a check that arrives afterwards starts afresh.
            inFlight.remove(key, mine);
            if (failure != null) {
                mine.completeExceptionally(failure);
            } else {
                mine.complete(matches);
            }
        });
        return mine.thenApply(Function.identity());
    }

    private record Key(byte[] mac) {
        @Override
        public boolean equals(Object other) {
            return other instanceof Key key && Arrays.equals(mac, key.mac);
        }

        @Override
        public int hashCode() {
            return Arrays.hashCode(mac);
        }
    }
}
