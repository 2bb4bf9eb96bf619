package io.deviceidentity.loadtest.emqx;

import java.net.URI;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.http.RequestOptions;
import io.vertx.core.net.PemTrustOptions;

/**
 * The HTTP/1.1 keep-alive connection of one ehttpc worker (gun underneath). Vert.x is held to exactly one
 * connection; how many requests are in flight on it is decided by {@link PipelinedWorker}, never by Vert.x.
 * An {@code https} URL is spoken over TLS as EMQX's authenticator does with {@code ssl { enable = true, verify =
 * verify_peer }}: the server's certificate must chain to the trusted CA ({@link ClientTls}) and name the host; with a
 * {@link ClientCertificate} it is presented when the server asks for one (auth-service with client-auth required),
 * as EMQX's {@code ssl.certfile}/{@code keyfile}.
 */
final class HttpTransport implements Transport {

    private final Vertx vertx;
    private final HttpClientOptions options;
    private final RequestOptions request;
    private HttpClient http;

    HttpTransport(Vertx vertx, URI url, ClientTls tls, int pipelining) {
        HttpClientOptions options = new HttpClientOptions()
                .setDefaultHost(url.getHost())
                .setDefaultPort(url.getPort())
                .setKeepAlive(true)
                // EMQX never closes an idle authn connection itself (gun keepalive is off).
                .setKeepAliveTimeout(0)
                .setPipelining(pipelining > 1)
                .setPipeliningLimit(Math.max(1, pipelining))
                // EMQX's connect_timeout default.
                .setConnectTimeout(15_000);
        if (ClientTls.isHttps(url)) {
            // HTTP/1.1 only (no ALPN), as EMQX's client and the services' listeners speak.
            options.setSsl(true).setVerifyHost(true).setUseAlpn(false);
            tls.caFile().ifPresent(ca -> options.setTrustOptions(new PemTrustOptions().addCertPath(ca.toString())));
            tls.certificate().ifPresent(certificate -> options.setKeyCertOptions(certificate.options()));
        }
        this.vertx = vertx;
        this.options = options;
        this.http = open();
        this.request = new RequestOptions()
                .setMethod(HttpMethod.POST)
                .setURI(url.getPath())
                // ehttpc/EMQX default headers for a POST authenticator.
                .putHeader("accept", "application/json")
                .putHeader("cache-control", "no-cache")
                .putHeader("connection", "keep-alive")
                .putHeader("keep-alive", "timeout=30, max=1000")
                .putHeader("content-type", "application/json");
    }

    @Override
    public void send(Buffer body, Handler<AsyncResult<Answer>> done) {
        http.request(request)
                .compose(req -> req.send(body))
                .compose(response -> response.body().map(b -> AnswerParser.parse(response.statusCode(), b)))
                .onComplete(done);
    }

    /**
     * A client of its own for each connection: Vert.x keeps TLS sessions per client, so a new connection after
     * {@link #reconnect()} resumes nothing and pays a full handshake, as Erlang's ssl client does for EMQX.
     */
    private HttpClient open() {
        return vertx.createHttpClient(options, new PoolOptions().setHttp1MaxSize(1));
    }

    @Override
    public void reconnect() {
        HttpClient dropped = http;
        http = open();
        dropped.close();
    }

    @Override
    public Future<Void> close() {
        return http.close();
    }
}
