package io.deviceidentity.loadtest.emqx;

import java.time.Duration;
import java.util.function.Consumer;

import io.vertx.core.buffer.Buffer;

/**
 * One authn request as ehttpc 0.7.3 handles it (emqx/ehttpc@0.7.3, src/ehttpc.erl), from the moment EMQX's
 * connection process calls the HTTP client until that caller has its result.
 * <ul>
 *   <li><b>The clock starts when the call enters the worker's queue</b>: {@code request/5} computes
 *       {@code ExpireAt = fresh_expire_at(Timeout)} ({@code now_() + Timeout}) <i>before</i> its
 *       {@code gen_server:call}, and {@code handle_call} only enqueues it ({@code enqueue_req}).</li>
 *   <li>A queued request past its {@code ExpireAt} is dropped unsent ({@code drop_expired}: {@code Now > ExpireAt};
 *       the caller is not told, {@code maybe_reply_timeout} does nothing for a {@code gen_server:call}).</li>
 *   <li>An answer that arrives after {@code ExpireAt} is dropped unread: {@code handle_gun_reply} →
 *       {@code take_sent_req} → {@code is_sent_req_expired} ({@code Now > ExpireAt}) → {@code {expired, _}} →
 *       {@code cancel_stream}; nobody is replied to.</li>
 *   <li>The caller's {@code gen_server:call} waits {@code Timeout + 500} ms and then gets {@code {error, timeout}}.
 *       Those 0.5 s only delay the timeout: an answer inside them is already expired and never delivered.</li>
 *   <li>HTTP statuses are results ({@code {ok, Status, ...}}), never retried. A transport error
 *       ({@code gun_error}/{@code gun_down} for a sent request that has not expired) is replied as
 *       {@code {error, Reason}}, and {@code request/5} calls itself again on the <i>same worker</i> with
 *       {@code Retry - 1}: at most 2 retries (emqx_bridge_http_connector:on_query passes {@code Retry = 2};
 *       emqx_authn_http:authenticate reaches it through emqx_resource_buffer_worker:simple_sync_query, which bypasses
 *       the buffer workers and calls the connector once, without retries of its own). Each retry is a new
 *       call: a fresh {@code ExpireAt}, a fresh caller timeout, and the back of the worker's queue.
 *       ({@code gun_down} with reason {@code normal} is retried without using a credit; not imitated.)</li>
 * </ul>
 * So: <b>in time means the answer arrived within request_timeout of the call entering the worker's queue</b>;
 * a later answer is {@link Delivery#LATE}: the service's work was wasted and the device sees a timeout.
 * Latency is measured from the first entry into the queue (what the device waits), across retries.
 */
final class AuthnCall {

    /** ehttpc retries transport errors twice ({@code Retry = 2}); HTTP statuses are never retried. */
    static final int TRANSPORT_RETRIES = 2;

    /** {@code CallTimeout = T + 500} in ehttpc:request/5. */
    static final long CALLER_EXTRA_NANOS = Duration.ofMillis(500).toNanos();

    /** What became of an answer that arrived. */
    enum Delivery { IN_TIME, LATE }

    /** What became of a transport error. */
    enum AfterError { RETRY, CALLER_GOT_ERROR, DROPPED_EXPIRED }

    final Buffer body;
    /** When the call first entered a worker's queue: the device's clock, for latency. */
    final long enteredNanos;
    private final long requestTimeoutNanos;
    private final EmqxClock clock;
    private final Consumer<Answer> caller;
    private long expiresAtNanos;
    private long callerTimer = -1;
    private int retriesLeft = TRANSPORT_RETRIES;
    private boolean callerDone;

    AuthnCall(Buffer body, EmqxClock clock, long requestTimeoutNanos, Consumer<Answer> caller) {
        this.body = body;
        this.clock = clock;
        this.requestTimeoutNanos = requestTimeoutNanos;
        this.caller = caller;
        this.enteredNanos = clock.nanoTime();
        startAttempt(enteredNanos);
    }

    /** ehttpc's {@code Now > ExpireAt} (drop_expired, is_sent_req_expired). */
    boolean isExpired(long nowNanos) {
        return nowNanos > expiresAtNanos;
    }

    boolean isCallerDone() {
        return callerDone;
    }

    long expiresAtNanos() {
        return expiresAtNanos;
    }

    /**
     * An HTTP answer arrived at {@code nowNanos}. Delivered to the caller only when it is in time; a late one is
     * dropped unread and the caller keeps waiting for its own timeout.
     */
    Delivery answerArrived(Answer answer, long nowNanos) {
        if (callerDone || isExpired(nowNanos)) {
            return Delivery.LATE;
        }
        finish(answer);
        return Delivery.IN_TIME;
    }

    /**
     * A transport error for the sent request: {@code RETRY} when the call is to be queued again (a fresh expiry
     * and caller timeout); {@code CALLER_GOT_ERROR} when no retry was left (the caller has
     * {@link Answer#TRANSPORT_ERROR}); {@code DROPPED_EXPIRED} when the request had expired (take_sent_req says
     * {@code expired}: nobody is told, the caller will time out).
     */
    AfterError transportFailed(long nowNanos) {
        if (callerDone || isExpired(nowNanos)) {
            return AfterError.DROPPED_EXPIRED;
        }
        if (retriesLeft > 0) {
            retriesLeft--;
            startAttempt(nowNanos);
            return AfterError.RETRY;
        }
        finish(Answer.TRANSPORT_ERROR);
        return AfterError.CALLER_GOT_ERROR;
    }

    /** Nanoseconds since the call entered the queue (the device's wait, retries included). */
    long latencyNanos(long nowNanos) {
        return nowNanos - enteredNanos;
    }

    private void startAttempt(long nowNanos) {
        expiresAtNanos = nowNanos + requestTimeoutNanos;
        if (callerTimer >= 0) {
            clock.cancel(callerTimer);
        }
        callerTimer = clock.schedule(requestTimeoutNanos + CALLER_EXTRA_NANOS, this::callerTimedOut);
    }

    private void callerTimedOut() {
        callerTimer = -1;
        if (!callerDone) {
            callerDone = true;
            caller.accept(Answer.TIMEOUT);
        }
    }

    private void finish(Answer answer) {
        callerDone = true;
        if (callerTimer >= 0) {
            clock.cancel(callerTimer);
            callerTimer = -1;
        }
        caller.accept(answer);
    }
}
