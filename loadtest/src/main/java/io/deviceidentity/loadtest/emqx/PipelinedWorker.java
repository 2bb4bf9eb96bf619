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
 * ({@code take_sent_req}). The in-time rule itself lives in {@link AuthnCall}. A connection whose requests all
 * expired more than {@code max_inactive} ago without an answer is dropped and a new one opened
 * ({@link JammedConnection}); ehttpc looks on every event of the worker ({@code maybe_shoot}) and every
 * {@code max_inactive} ({@code check_inactive} timer), and so does this. All methods run on the event loop.
 */
final class PipelinedWorker {

    private final Transport transport;
    private final int pipelining;
    private final CallListener listener;
    private final EmqxClock clock;
    private final JammedConnection jam;
    private final ArrayDeque<AuthnCall> queue = new ArrayDeque<>();
    private int inFlight;
    /** Which connection a request went out on: answers and failures of a dropped one are nobody's. */
    private int connection;
    private long inactiveCheck = -1;
    private boolean closed;

    PipelinedWorker(Transport transport, int pipelining, CallListener listener, EmqxClock clock,
            JammedConnection jam) {
        this.transport = transport;
        this.pipelining = pipelining;
        this.listener = listener;
        this.clock = clock;
        this.jam = jam;
    }

    void submit(AuthnCall call) {
        if (inactiveCheck < 0 && !closed) {
            // Armed on the event loop, by the first call (ehttpc's init/1 starts it with the worker).
            scheduleInactiveCheck();
        }
        queue.addLast(call);
        long now = clock.nanoTime();
        dropExpired(now);
        dropIfJammed(now);
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
            jam.sent(call.expiresAtNanos());
            long sentAt = clock.nanoTime();
            String replica = transport.target();
            int on = connection;
            transport.send(call.body, result -> completed(call, on, sentAt, replica, result));
        }
    }

    private void completed(AuthnCall call, int on, long sentAt, String replica, AsyncResult<Answer> result) {
        if (closed || on != connection) {
            // The run is over, or the connection was dropped as jammed (its requests had all expired; ehttpc's
            // handle_client_down replies to none of them): nobody's answer.
            return;
        }
        inFlight--;
        jam.taken(inFlight);
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
        dropIfJammed(now);
        pump();
    }

    private void scheduleInactiveCheck() {
        inactiveCheck = clock.schedule(jam.maxInactiveNanos(), () -> {
            if (closed) {
                return;
            }
            long now = clock.nanoTime();
            dropExpired(now);
            dropIfJammed(now);
            pump();
            scheduleInactiveCheck();
        });
    }

    /** ehttpc's {@code check_gun_jammed} → {@code exit(Client, kill)}: the next request goes on a new connection. */
    private void dropIfJammed(long now) {
        if (!jam.isJammed(now)) {
            return;
        }
        connection++;
        inFlight = 0;
        jam.reset();
        listener.jammedConnectionDropped();
        transport.reconnect();
    }

    Future<Void> close() {
        closed = true;
        queue.clear();
        if (inactiveCheck >= 0) {
            clock.cancel(inactiveCheck);
        }
        return transport.close();
    }
}
