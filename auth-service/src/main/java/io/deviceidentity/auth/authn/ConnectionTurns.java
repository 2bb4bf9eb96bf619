package io.deviceidentity.auth.authn;

import java.time.Duration;
import java.util.Collections;
import java.util.Map;
import java.util.WeakHashMap;
import java.util.function.LongSupplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import io.deviceidentity.overload.OverloadConfig;

/**
 * Takes turns between EMQX's connections for bcrypt while it is overloaded.
 *
 * <p>Why: EMQX sends one request at a time per connection (pipelining 1) from a per-connection FIFO. When a hash
 * finishes, the connection that gets its answer sends its next request at once and is first to find the freed place
 * in the bcrypt queue, every time: the same two or three connections keep the places, the requests queued behind them
 * in EMQX wait until EMQX's clock runs out, while the other connections idle. So, while the bcrypt queue stands, a
 * connection whose request was hashed less than one interval ago is refused at once; its backlog drains in
 * milliseconds and the place goes to another connection.
 *
 * <p>Connections are the keys of a weak map: a closed connection's entry goes with it.
 */
@ApplicationScoped
public class ConnectionTurns {

    private final long cooldownNanos;
    private final LongSupplier clock;
    private final Map<Object, Long> hashedAt = Collections.synchronizedMap(new WeakHashMap<>());

    @Inject
    public ConnectionTurns(OverloadConfig config) {
        this(config.bcrypt().interval(), System::nanoTime);
    }

    public ConnectionTurns(Duration cooldown, LongSupplier clock) {
        this.cooldownNanos = cooldown.toNanos();
        this.clock = clock;
    }

    /** A request of this connection was hashed (its answer is on its way). */
    public void hashed(Object connection) {
        if (connection != null) {
            hashedAt.put(connection, clock.getAsLong());
        }
    }

    /** Whether this connection had its turn less than the cooldown ago. */
    public boolean hadItsTurn(Object connection) {
        Long at = connection == null ? null : hashedAt.get(connection);
        return at != null && clock.getAsLong() - at < cooldownNanos;
    }
}
