package io.deviceidentity.loadtest.emqx;

import java.time.Duration;

/**
 * ehttpc's test for a zombie connection (emqx/ehttpc@0.7.3, src/ehttpc.erl, {@code check_gun_jammed}): the worker
 * remembers the latest expiry of the requests it has sent since none was left unanswered ({@code max_sent_expire},
 * raised by {@code put_sent_req}, back to 0 by {@code take_sent_req} when the last sent request is taken). When that
 * expiry is more than {@code max_inactive} in the past ({@code now_() - MaxExpireTs > MaxInactiveDuration}), every
 * request on the connection has expired and none has been answered since: ehttpc kills the connection
 * ({@code exit(Client, kill)} in {@code maybe_shoot}) and the next request opens a new one. EMQX never sets
 * {@code max_inactive}, so it is {@code DEFAULT_MAX_INACTIVE}, 10 s.
 * <p>
 * Why it matters to a bench: a service that holds requests (its own unbounded queue, a hung replica) does not keep
 * EMQX's connection; 10 s after the newest request's expiry the connection is dropped, the service's queued work for
 * it is done for nobody, and EMQX opens a new connection (a full TLS handshake: Erlang's ssl client resumes no TLS 1.3
 * session unless {@code session_tickets} is set, and EMQX does not set it).
 */
final class JammedConnection {

    /** ehttpc's {@code ?DEFAULT_MAX_INACTIVE}. */
    static final Duration MAX_INACTIVE = Duration.ofSeconds(10);

    private final long maxInactiveNanos;
    private boolean anySent;
    private long latestSentExpiry;

    JammedConnection(Duration maxInactive) {
        this.maxInactiveNanos = maxInactive.toNanos();
    }

    long maxInactiveNanos() {
        return maxInactiveNanos;
    }

    /** A request expiring at {@code expiresAtNanos} was sent on the connection. */
    void sent(long expiresAtNanos) {
        latestSentExpiry = anySent ? Math.max(latestSentExpiry, expiresAtNanos) : expiresAtNanos;
        anySent = true;
    }

    /** A sent request was taken (answered, failed or dropped); {@code stillInFlight} are left unanswered. */
    void taken(int stillInFlight) {
        if (stillInFlight == 0) {
            anySent = false;
        }
    }

    /** The connection was dropped: nothing is in flight on the next one yet. */
    void reset() {
        anySent = false;
    }

    boolean isJammed(long nowNanos) {
        return anySent && nowNanos - latestSentExpiry > maxInactiveNanos;
    }
}
