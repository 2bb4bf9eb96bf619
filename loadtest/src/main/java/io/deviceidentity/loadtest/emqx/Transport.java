package io.deviceidentity.loadtest.emqx;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;

/** One worker's connection: sends a request body, completes with the parsed answer or a transport failure. */
interface Transport {

    void send(Buffer body, Handler<AsyncResult<Answer>> done);

    /** The replica the next {@link #send} goes to, for per-replica figures; null behind a single address. */
    default String target() {
        return null;
    }

    /**
     * Drops the connection as ehttpc drops a jammed one ({@code exit(Client, kill)}): requests in flight on it fail or
     * are never answered, and the next {@link #send} opens a new connection, with a full TLS handshake.
     */
    void reconnect();

    Future<Void> close();
}
