package io.deviceidentity.loadtest.emqx;

import java.util.ArrayDeque;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;

/** A connection whose answers the test gives, in order, when it wants. */
final class ScriptedTransport implements Transport {

    private final ArrayDeque<Handler<AsyncResult<Answer>>> sent = new ArrayDeque<>();
    int requestsSent;
    int reconnects;

    @Override
    public void send(Buffer body, Handler<AsyncResult<Answer>> done) {
        requestsSent++;
        sent.addLast(done);
    }

    int awaitingAnswer() {
        return sent.size();
    }

    void answer(Answer answer) {
        sent.pollFirst().handle(Future.succeededFuture(answer));
    }

    void fail() {
        sent.pollFirst().handle(Future.failedFuture("connection reset"));
    }

    /** The requests in flight fail as a killed connection's do; later sends go on the new connection. */
    @Override
    public void reconnect() {
        reconnects++;
        while (!sent.isEmpty()) {
            fail();
        }
    }

    @Override
    public Future<Void> close() {
        return Future.succeededFuture();
    }
}
