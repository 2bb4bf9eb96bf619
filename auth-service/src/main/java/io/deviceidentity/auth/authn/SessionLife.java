package io.deviceidentity.auth.authn;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.DoubleSupplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import io.deviceidentity.auth.AuthConfig;

/**
 * The {@code expire_at} of an allow: now + the configured maximum session life, less a random 0..10 %.
 *
 * <p>Why: a revoked or re-keyed device is normally kicked off EMQX at once (registration-service's kick outbox), but a
 * kick can be missed (no EMQX API configured, the outbox row removed by hand, an EMQX that lost the session table
 * during the kick). With {@code expire_at} every session ends within the bound anyway, and the reconnect reads the
 * row: a revoked device is denied, a re-keyed one must present the new password. The cost is one login per device
 * per period, and a returning device with an unchanged password takes auth-service's fast path (an HMAC and one
 * indexed read, no bcrypt). The spread keeps a fleet that connected in one storm from reconnecting in one storm.
 *
 * <p>EMQX's contract (emqx/emqx v5.8.9, {@code apps/emqx_auth_http/src/emqx_authn_http.erl} {@code expire_at/1}):
 * Unix time in seconds, an integer; one in the past, or one that looks like milliseconds, turns the allow into a
 * rejection. At that time the channel sends DISCONNECT with reason 0x87 not authorized
 * ({@code apps/emqx/src/emqx_channel.erl}, {@code handle_timeout(_, connection_expire, _)}); the session itself
 * lives on for its session expiry interval, so a device that reconnects resumes it.
 */
@ApplicationScoped
public class SessionLife {

    static final Duration SHORTEST = Duration.ofMinutes(1);
    private static final double SPREAD = 0.10;

    private final Duration maxLife;
    private final Clock clock;
    private final DoubleSupplier random;

    @Inject
    public SessionLife(AuthConfig config) {
        this(config.maxSessionLife(), Clock.systemUTC(), () -> ThreadLocalRandom.current().nextDouble());
    }

    SessionLife(Duration maxLife, Clock clock, DoubleSupplier random) {
        if (maxLife.isNegative() || (!maxLife.isZero() && maxLife.compareTo(SHORTEST) < 0)) {
            throw new IllegalArgumentException("identity.auth.max-session-life must be 0s (off) or at least "
                    + SHORTEST.toSeconds() + "s, got " + maxLife);
        }
        this.maxLife = maxLife;
        this.clock = clock;
        this.random = random;
    }

    /** Unix seconds at which the session being allowed now must end; null when sessions are not bounded. */
    public Long expireAt() {
        if (maxLife.isZero()) {
            return null;
        }
        long lifeMillis = maxLife.toMillis();
        long spreadMillis = (long) (lifeMillis * SPREAD * random.getAsDouble());
        return (clock.millis() + lifeMillis - spreadMillis) / 1000;
    }
}
