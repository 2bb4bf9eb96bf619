package io.deviceidentity.loadtest.emqx;

import java.util.ArrayDeque;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;

/**
 * One ehttpc worker (emqx/ehttpc@0.7.3, src/ehttpc.erl): a single connection carrying at most {@code pipelining}
 * sent-and-unanswered requests ({@code check_gun_limit}); further calls wait in the worker's unbounded FIFO
 * ({@code enqueue_req}, {@code queue:in}); expired calls at the head of the queue are dropped unsent
 * ({@code drop_expired}, run on every enqueue and before every send in {@code maybe_shoot}). A sent request keeps
 * its pipelining slot until its answer arrives, even when that answer is then dropped as expired
 * ({@code take_sent_req}). The in-time rule itself lives in {@link AuthnCall}. All methods run on the event loop.
 * <p>
 * Not imitated: ehttpc's zombie-connection check ({@code check_gun_jammed}: reconnect when the newest sent request
 * expired more than {@code max_inactive}, 10 s, ago with no answer since).
 */
final class PipelinedWorker {

    private final Transport transport;
    private final int pipelining;
    private final CallListener listener;
    private final EmqxClock clock;
    private final ArrayDeque<AuthnCall> queue = new ArrayDeque<>();
    private int inFlight;
    private boolean closed;

    PipelinedWorker(Transport transport, int pipelining, CallListener listener, EmqxClock clock) {
        this.transport = transport;
        this.pipelining = pipelining;
        this.listener = listener;
        this.clock = clock;
    }

    void submit(AuthnCall call) {
        queue.addLast(call);
        dropExpired(clock.nanoTime());
        pump();
    }

    int inFlight() {
        return inFlight;
    }

    /** Calls waiting in this worker's queue (expired ones at its head are dropped first, as ehttpc does). */
    int queued() {
        dropExpired(clock.nanoTime());
        return queue.size();
    }

    private void dropExpired(long now) {
        while (!queue.isEmpty() && queue.peekFirst().isExpired(now)) {
            queue.pollFirst();
            listener.expiredInQueue();
        }
    }

    private void pump() {
        while (!closed && inFlight < pipelining && !queue.isEmpty()) {
            dropExpired(clock.nanoTime());
            AuthnCall call = queue.pollFirst();
            if (call == null) {
                return;
            }
            inFlight++;
            long sentAt = clock.nanoTime();
            String replica = transport.target();
            transport.send(call.body, result -> completed(call, sentAt, replica, result));
        }
    }

    private void completed(AuthnCall call, long sentAt, String replica, AsyncResult<Answer> result) {
        inFlight--;
        if (closed) {
            return; // the run is over: requests failed by closing the connection are nobody's answers
        }
        long now = clock.nanoTime();
        if (result.succeeded()) {
            Answer answer = result.result();
            boolean inTime = call.answerArrived(answer, now) == AuthnCall.Delivery.IN_TIME;
            listener.answered(answer, call.latencyNanos(now), inTime);
            listener.serviceTime(answer, now - sentAt);
            if (replica != null) {
                listener.answeredBy(replica, answer, inTime);
            }
        } else {
            switch (call.transportFailed(now)) {
                // ehttpc:request/5 calls the same worker again: a new call at the back of its queue.
                case RETRY -> queue.addLast(call);
                case CALLER_GOT_ERROR -> listener.answered(Answer.TRANSPORT_ERROR, call.latencyNanos(now), true);
                case DROPPED_EXPIRED -> { }
            }
        }
        dropExpired(now);
        pump();
    }

    Future<Void> close() {
        closed = true;
        queue.clear();
        return transport.close();
    }
}
