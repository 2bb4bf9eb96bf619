package io.deviceidentity.loadtest.emqx;

import java.util.function.Function;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;

/**
 * One ehttpc worker's connection through a Kubernetes Service ({@link ServiceEndpoints}): opened at once to a replica
 * the Service picks (EMQX's resource health check opens every worker's connection when the authenticator starts,
 * ehttpc {@code handle_call({health_check, _}, …)} → {@code open/1}), kept for every later request, and opened anew
 * (so possibly to another replica) after a transport failure, as ehttpc does when gun reports the connection down.
 * {@link #reopen()} closes it once its requests in flight are answered and opens a new one.
 */
final class BalancedTransport implements Transport {

    private final ServiceEndpoints service;
    private final Function<ServiceEndpoints.Endpoint, Transport> connect;
    private ServiceEndpoints.Endpoint endpoint;
    private Transport connection;
    private int inFlight;
    private boolean reopenRequested;

    BalancedTransport(ServiceEndpoints service, Function<ServiceEndpoints.Endpoint, Transport> connect) {
        this.service = service;
        this.connect = connect;
        service.register(this);
        ensureOpen();
    }

    @Override
    public String target() {
        ensureOpen();
        return endpoint.name();
    }

    @Override
    public void send(Buffer body, Handler<AsyncResult<Answer>> done) {
        ensureOpen();
        Transport via = connection;
        inFlight++;
        via.send(body, result -> {
            if (via == connection) {
                inFlight--;
                if (result.failed() || reopenRequested && inFlight == 0) {
                    drop();
                }
            }
            done.handle(result);
        });
    }

    /** Drops the connection now, requests in flight and all, and opens one to a replica the Service picks. */
    @Override
    public void reconnect() {
        if (connection != null) {
            drop();
        }
    }

    /** Closes the connection once nothing is in flight on it (at once if nothing is). */
    void reopen() {
        if (connection == null) {
            return;
        }
        if (inFlight == 0) {
            drop();
        } else {
            reopenRequested = true;
        }
    }

    private void ensureOpen() {
        if (connection == null) {
            endpoint = service.connect();
            connection = connect.apply(endpoint);
        }
    }

    private void drop() {
        inFlight = 0;
        connection.close();
        service.disconnected(endpoint);
        connection = null;
        reopenRequested = false;
        ensureOpen();
    }

    @Override
    public Future<Void> close() {
        if (connection == null) {
            return Future.succeededFuture();
        }
        Transport closing = connection;
        service.disconnected(endpoint);
        connection = null;
        return closing.close();
    }
}
