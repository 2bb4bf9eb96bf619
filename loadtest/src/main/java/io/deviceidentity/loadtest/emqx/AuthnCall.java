package io.deviceidentity.loadtest.emqx;

import java.util.function.Consumer;

import io.vertx.core.buffer.Buffer;

/**
 * One authn request from the moment EMQX's connection process calls the HTTP client until its caller has a
 * result. The caller waits {@code request_timeout + 0.5 s}; the request itself expires after
 * {@code request_timeout}, after which a worker drops it unsent. An answer that arrives after the caller gave up
 * is still counted (as late): the service spent the work anyway.
 */
final class AuthnCall {

    /** ehttpc retries transport errors twice; HTTP statuses are never retried. */
    static final int TRANSPORT_RETRIES = 2;

    final Buffer body;
    final long startNanos;
    final long expiresAtNanos;
    private final Consumer<Answer> caller;
    private int retriesLeft = TRANSPORT_RETRIES;
    private boolean callerDone;

    AuthnCall(Buffer body, long startNanos, long requestTimeoutNanos, Consumer<Answer> caller) {
        this.body = body;
        this.startNanos = startNanos;
        this.expiresAtNanos = startNanos + requestTimeoutNanos;
        this.caller = caller;
    }

    boolean isExpired(long nowNanos) {
        return nowNanos >= expiresAtNanos;
    }

    boolean isCallerDone() {
        return callerDone;
    }

    boolean takeRetry() {
        if (retriesLeft == 0 || callerDone) {
            return false;
        }
        retriesLeft--;
        return true;
    }

    /** Records the answer; returns whether the caller was still waiting for it. */
    boolean answer(Answer answer) {
        if (callerDone) {
            return false;
        }
        callerDone = true;
        caller.accept(answer);
        return true;
    }

    /** The caller's own timeout fired; returns false when the call had been answered already. */
    boolean giveUp() {
        if (callerDone) {
            return false;
        }
        callerDone = true;
        caller.accept(Answer.TIMEOUT);
        return true;
    }
}
