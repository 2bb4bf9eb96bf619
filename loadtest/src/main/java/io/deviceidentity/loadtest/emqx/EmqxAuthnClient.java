package io.deviceidentity.loadtest.emqx;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;

/**
 * EMQX's HTTP authenticator client on one node: {@code pool_size} workers, each one connection with up to
 * {@code pipelining} requests in flight, a random worker per request (pool_type = random), the caller waiting
 * {@code request_timeout + 0.5 s}, transport errors retried twice, HTTP statuses never.
 */
public final class EmqxAuthnClient {

    /** gen_server:call timeout = request_timeout + 500 ms in emqx_authn_http. */
    private static final long CALLER_EXTRA_NANOS = Duration.ofMillis(500).toNanos();

    private final Vertx vertx;
    private final List<PipelinedWorker> workers = new ArrayList<>();
    private final long requestTimeoutNanos;
    private final CallListener listener;
    private int awaitingCallers;

    public EmqxAuthnClient(Vertx vertx, String host, int port, String path, int poolSize, int pipelining,
            Duration requestTimeout, CallListener listener) {
        if (poolSize < 1 || pipelining < 1) {
            throw new IllegalArgumentException("pool size and pipelining must be at least 1");
        }
        this.vertx = vertx;
        this.requestTimeoutNanos = requestTimeout.toNanos();
        this.listener = listener;
        for (int i = 0; i < poolSize; i++) {
            workers.add(new PipelinedWorker(vertx, host, port, path, pipelining, listener));
        }
    }

    /** Sends one authn request; {@code caller} gets exactly one result: the answer in time, or TIMEOUT. */
    public void authenticate(Buffer body, Consumer<Answer> caller) {
        long now = System.nanoTime();
        long[] callerTimer = {-1};
        awaitingCallers++;
        AuthnCall call = new AuthnCall(body, now, requestTimeoutNanos, answer -> {
            awaitingCallers--;
            if (answer != Answer.TIMEOUT) {
                vertx.cancelTimer(callerTimer[0]);
            }
            caller.accept(answer);
        });
        long callerTimeoutMillis = (requestTimeoutNanos + CALLER_EXTRA_NANOS) / 1_000_000;
        callerTimer[0] = vertx.setTimer(callerTimeoutMillis, id -> {
            if (call.giveUp()) {
                listener.timedOut();
            }
        });
        listener.offered();
        workers.get(ThreadLocalRandom.current().nextInt(workers.size())).submit(call);
    }

    /** Calls whose caller has no result yet (neither an answer nor its timeout). */
    public int awaitingCallers() {
        return awaitingCallers;
    }

    /** Requests sent and not yet answered, including ones whose caller already gave up. */
    public int inFlight() {
        return workers.stream().mapToInt(PipelinedWorker::inFlight).sum();
    }

    public int queued() {
        return workers.stream().mapToInt(PipelinedWorker::queued).sum();
    }

    public Future<Void> close() {
        return Future.join(workers.stream().map(PipelinedWorker::close).toList()).mapEmpty();
    }
}
