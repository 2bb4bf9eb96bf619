package io.deviceidentity.loadtest.emqx;

import java.util.ArrayDeque;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;

/**
 * One ehttpc worker: a single HTTP/1.1 keep-alive connection that carries at most {@code pipelining} requests
 * awaiting an answer; further requests wait in an unbounded queue of this worker, and requests that have expired
 * while queued are dropped unsent. The limit and the queue are kept here, not in Vert.x, so that Vert.x never
 * opens a second connection or queues on its own. All methods run on the single event loop.
 */
final class PipelinedWorker {

    private final HttpClient http;
    private final RequestOptions request;
    private final int pipelining;
    private final CallListener listener;
    private final ArrayDeque<AuthnCall> queue = new ArrayDeque<>();
    private int inFlight;
    private boolean closed;

    PipelinedWorker(Vertx vertx, String host, int port, String path, int pipelining, CallListener listener) {
        this.pipelining = pipelining;
        this.listener = listener;
        HttpClientOptions options = new HttpClientOptions()
                .setDefaultHost(host)
                .setDefaultPort(port)
                .setKeepAlive(true)
                // EMQX never closes an idle authn connection itself (gun keepalive is off).
                .setKeepAliveTimeout(0)
                .setPipelining(pipelining > 1)
                .setPipeliningLimit(Math.max(1, pipelining))
                // EMQX's connect_timeout default.
                .setConnectTimeout(15_000);
        this.http = vertx.createHttpClient(options, new PoolOptions().setHttp1MaxSize(1));
        this.request = new RequestOptions()
                .setMethod(HttpMethod.POST)
                .setURI(path)
                // ehttpc/EMQX default headers for a POST authenticator.
                .putHeader("accept", "application/json")
                .putHeader("cache-control", "no-cache")
                .putHeader("connection", "keep-alive")
                .putHeader("keep-alive", "timeout=30, max=1000")
                .putHeader("content-type", "application/json");
    }

    void submit(AuthnCall call) {
        queue.addLast(call);
        pump();
    }

    int inFlight() {
        return inFlight;
    }

    int queued() {
        return queue.size();
    }

    private void pump() {
        while (inFlight < pipelining && !queue.isEmpty()) {
            AuthnCall call = queue.pollFirst();
            if (call.isExpired(System.nanoTime())) {
                listener.expiredInQueue();
                continue;
            }
            send(call);
        }
    }

    private void send(AuthnCall call) {
        inFlight++;
        http.request(request)
                .compose(req -> req.send(call.body))
                .compose(response -> response.body().map(body -> AnswerParser.parse(response.statusCode(), body)))
                .onComplete(result -> completed(call, result));
    }

    private void completed(AuthnCall call, AsyncResult<Answer> result) {
        inFlight--;
        if (closed) {
            return; // the run is over: requests failed by closing the connection are nobody's answers
        }
        if (result.succeeded()) {
            Answer answer = result.result();
            long latency = System.nanoTime() - call.startNanos;
            listener.answered(answer, latency, call.answer(answer));
        } else if (call.takeRetry()) {
            // Connection closed or refused: ehttpc retries on the same worker, at most twice.
            queue.addFirst(call);
        } else if (!call.isCallerDone()) {
            long latency = System.nanoTime() - call.startNanos;
            listener.answered(Answer.TRANSPORT_ERROR, latency, call.answer(Answer.TRANSPORT_ERROR));
        }
        pump();
    }

    Future<Void> close() {
        closed = true;
        queue.clear();
        return http.close();
    }
}
