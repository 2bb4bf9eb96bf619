package io.deviceidentity.loadtest.emqx;

import java.net.URI;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.function.Consumer;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;

/**
 * EMQX's HTTP authenticator client on one node: {@code pool_size} ehttpc workers, each one connection with up to
 * {@code pipelining} requests in flight, a random worker per request ({@code pool_type = random}, which
 * emqx_authn_http:parse_config forces). What happens to each call is {@link AuthnCall}'s rule (ehttpc 0.7.3); a
 * connection that stopped answering is dropped and opened anew as ehttpc does ({@link JammedConnection}).
 */
public final class EmqxAuthnClient implements AuthnCalls {

    private final List<PipelinedWorker> workers = new ArrayList<>();
    private final long requestTimeoutNanos;
    private final CallListener listener;
    private final EmqxClock clock;
    private int awaitingCallers;

    public EmqxAuthnClient(Vertx vertx, URI url, ClientTls tls, int poolSize, int pipelining,
            Duration requestTimeout, CallListener listener) {
        this(vertx, url, tls, poolSize, pipelining, requestTimeout, JammedConnection.MAX_INACTIVE, listener);
    }

    EmqxAuthnClient(Vertx vertx, URI url, ClientTls tls, int poolSize, int pipelining, Duration requestTimeout,
            Duration maxInactive, CallListener listener) {
        this(poolSize, pipelining, requestTimeout, maxInactive, listener, EmqxClock.of(vertx),
                () -> new HttpTransport(vertx, url, tls, pipelining));
    }

    /**
     * The same pool in front of a Kubernetes Service: each worker's connection goes to the replica the Service picks
     * when it is opened, and stays there ({@link ServiceEndpoints}, {@link BalancedTransport}).
     */
    public static EmqxAuthnClient overService(Vertx vertx, ServiceEndpoints service, ClientTls tls, int poolSize,
            int pipelining, Duration requestTimeout, CallListener listener) {
        return overService(service, poolSize, pipelining, requestTimeout, listener, EmqxClock.of(vertx),
                endpoint -> new HttpTransport(vertx, endpoint.url(), tls, pipelining));
    }

    static EmqxAuthnClient overService(ServiceEndpoints service, int poolSize, int pipelining,
            Duration requestTimeout, CallListener listener, EmqxClock clock,
            java.util.function.Function<ServiceEndpoints.Endpoint, Transport> connect) {
        return new EmqxAuthnClient(poolSize, pipelining, requestTimeout, listener, clock,
                () -> new BalancedTransport(service, connect));
    }

    EmqxAuthnClient(int poolSize, int pipelining, Duration requestTimeout, CallListener listener, EmqxClock clock,
            java.util.function.Supplier<Transport> connections) {
        this(poolSize, pipelining, requestTimeout, JammedConnection.MAX_INACTIVE, listener, clock, connections);
    }

    /** {@code maxInactive}: ehttpc's {@code max_inactive}, which EMQX leaves at 10 s; shorter only in tests. */
    EmqxAuthnClient(int poolSize, int pipelining, Duration requestTimeout, Duration maxInactive, CallListener listener,
            EmqxClock clock, java.util.function.Supplier<Transport> connections) {
        if (poolSize < 1 || pipelining < 1) {
            throw new IllegalArgumentException("pool size and pipelining must be at least 1");
        }
        this.requestTimeoutNanos = requestTimeout.toNanos();
        this.listener = listener;
        this.clock = clock;
        for (int i = 0; i < poolSize; i++) {
            workers.add(new PipelinedWorker(connections.get(), pipelining, listener, clock,
                    new JammedConnection(maxInactive)));
        }
    }

    /** Sends one authn request; {@code caller} gets exactly one result: the answer in time, or TIMEOUT. */
    @Override
    public void authenticate(Buffer body, Consumer<Answer> caller) {
        awaitingCallers++;
        AuthnCall call = new AuthnCall(body, clock, requestTimeoutNanos, answer -> {
            awaitingCallers--;
            if (answer == Answer.TIMEOUT) {
                listener.timedOut();
            }
            caller.accept(answer);
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

    /** Calls waiting in all workers' queues. */
    public int queued() {
        return workers.stream().mapToInt(PipelinedWorker::queued).sum();
    }

    /** The longest single worker queue. */
    public int longestQueue() {
        return workers.stream().mapToInt(PipelinedWorker::queued).max().orElse(0);
    }

    public Future<Void> close() {
        return Future.join(workers.stream().map(PipelinedWorker::close).toList()).mapEmpty();
    }
}
