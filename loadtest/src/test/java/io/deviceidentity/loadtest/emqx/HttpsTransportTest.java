package io.deviceidentity.loadtest.emqx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.file.Path;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

import io.deviceidentity.testsupport.tls.LocalCa;
import io.vertx.core.AsyncResult;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpServer;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;

/**
 * The load generator speaks to an HTTPS auth-service as EMQX's authenticator does with {@code verify_peer}: over TLS,
 * trusting only the CA it is given, so that `make bench` can measure the service with TLS on. A real TLS server
 * (Vert.x, with a certificate from the project's own scripts/local-ca.sh) on loopback; no request reaches it when the
 * client cannot verify it.
 */
class HttpsTransportTest {

    private static final Buffer BODY = Buffer.buffer("{\"clientid\":\"d-1\",\"username\":\"\",\"password\":\"p\"}");

    @TempDir
    Path dir;
    private Vertx vertx;
    private final AtomicInteger requestsOverTls = new AtomicInteger();
    private final AtomicInteger plainRequests = new AtomicInteger();
    private LocalCa ca;
    private int port;

    @BeforeEach
    void startAnHttpsService() throws Exception {
        ca = LocalCa.in(dir.resolve("ca")).issue("auth-service");
        vertx = Vertx.vertx();
        port = listen("127.0.0.1");
    }

    private int listen(String host) throws Exception {
        HttpServerOptions options = new HttpServerOptions().setSsl(true).setKeyCertOptions(new PemKeyCertOptions()
                .setCertPath(ca.certificate("auth-service").toString()).setKeyPath(ca.key("auth-service").toString()));
        HttpServer server = vertx.createHttpServer(options).requestHandler(request -> {
            (request.isSSL() ? requestsOverTls : plainRequests).incrementAndGet();
            request.response().putHeader("content-type", "application/json")
                    .end("{\"result\":\"allow\",\"is_superuser\":false}");
        }).listen(0, host).toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        return server.actualPort();
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void anHttpsUrlIsSpokenOverTlsTrustingTheGivenCa() throws Exception {
        AsyncResult<Answer> result = send(URI.create("https://127.0.0.1:" + port + "/mqtt/authn"),
                new ClientTls(Optional.of(ca.caCertificate())));
        assertTrue(result.succeeded(), () -> "refused: " + result.cause());
        assertEquals(new Answer(200, "allow"), result.result());
        assertEquals(1, requestsOverTls.get());
    }

    @Test
    void aServerWhoseCertificateChainsToAnotherCaIsNeverSentTheRequest() throws Exception {
        LocalCa other = LocalCa.in(dir.resolve("other-ca"));
        AsyncResult<Answer> result = send(URI.create("https://127.0.0.1:" + port + "/mqtt/authn"),
                new ClientTls(Optional.of(other.caCertificate())));
        assertTrue(result.failed(), "a certificate from an untrusted CA was accepted");
        assertEquals(0, requestsOverTls.get() + plainRequests.get());
    }

    @Test
    void theJvmsTrustStoreDoesNotTrustALocalCa() throws Exception {
        AsyncResult<Answer> result = send(URI.create("https://127.0.0.1:" + port + "/mqtt/authn"), ClientTls.JVM_TRUST);
        assertTrue(result.failed(), "the local CA's certificate was trusted without --ca-file");
        assertEquals(0, requestsOverTls.get() + plainRequests.get());
    }

    @Test
    void aCertificateThatDoesNotNameTheHostIsRefused() throws Exception {
        // local-ca.sh's leaves name localhost and 127.0.0.1; 127.0.0.2 is a loopback address they do not carry.
        int elsewhere = listen("127.0.0.2");
        AsyncResult<Answer> result = send(URI.create("https://127.0.0.2:" + elsewhere + "/mqtt/authn"),
                new ClientTls(Optional.of(ca.caCertificate())));
        assertTrue(result.failed(), "a certificate for another host name was accepted");
        assertEquals(0, requestsOverTls.get() + plainRequests.get());
    }

    private AsyncResult<Answer> send(URI url, ClientTls tls) throws Exception {
        HttpTransport transport = new HttpTransport(vertx, url, tls, 1);
        CompletableFuture<AsyncResult<Answer>> done = new CompletableFuture<>();
        vertx.runOnContext(ignored -> transport.send(BODY, done::complete));
        try {
            return done.get(60, TimeUnit.SECONDS);
        } finally {
            transport.close();
        }
    }
}
