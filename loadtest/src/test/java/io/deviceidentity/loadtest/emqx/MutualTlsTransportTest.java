package io.deviceidentity.loadtest.emqx;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
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
import io.vertx.core.http.ClientAuth;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import io.vertx.core.net.PemTrustOptions;

/**
 * The load generator presents a client certificate as EMQX's authenticator does when auth-service requires one (the
 * chart's emqx.clientCertificate, IDENTITY_TLS_CLIENT_AUTH=required): a real Vert.x TLS server on loopback that
 * requires a client certificate of its CA (scripts/local-ca.sh's). Without one, or with one of another CA, the
 * handshake fails and no request reaches the server.
 */
class MutualTlsTransportTest {

    private static final Buffer BODY = Buffer.buffer("{\"clientid\":\"d-1\",\"username\":\"\",\"password\":\"p\"}");

    @TempDir
    Path dir;
    private Vertx vertx;
    private final AtomicInteger requests = new AtomicInteger();
    private LocalCa ca;
    private URI url;

    @BeforeEach
    void startAnHttpsServiceRequiringClientCertificates() throws Exception {
        ca = LocalCa.in(dir.resolve("ca")).issue("auth-service").issue("emqx-client");
        vertx = Vertx.vertx();
        HttpServerOptions options = new HttpServerOptions().setSsl(true)
                .setKeyCertOptions(new PemKeyCertOptions().setCertPath(ca.certificate("auth-service").toString())
                        .setKeyPath(ca.key("auth-service").toString()))
                .setClientAuth(ClientAuth.REQUIRED)
                .setTrustOptions(new PemTrustOptions().addCertPath(ca.caCertificate().toString()));
        int port = vertx.createHttpServer(options).requestHandler(request -> {
            requests.incrementAndGet();
            request.response().putHeader("content-type", "application/json")
                    .end("{\"result\":\"allow\",\"is_superuser\":false}");
        }).listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS).actualPort();
        url = URI.create("https://127.0.0.1:" + port + "/mqtt/authn");
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void aCertificateOfTheCaTheServerTrustsIsAccepted() throws Exception {
        AsyncResult<Answer> result = send(presenting(ca.certificate("emqx-client"), ca.key("emqx-client")));
        assertTrue(result.succeeded(), () -> "refused: " + result.cause());
        assertEquals(new Answer(200, "allow"), result.result());
        assertEquals(1, requests.get());
    }

    /** cert-manager writes an ECDSA key as SEC1 ("EC PRIVATE KEY") unless privateKey.encoding is PKCS8. */
    @Test
    void aSec1EcKeyAsCertManagerWritesItIsAcceptedToo() throws Exception {
        Path sec1 = dir.resolve("emqx-client.sec1.key");
        Process openssl = new ProcessBuilder("openssl", "ec", "-in", ca.key("emqx-client").toString(), "-out",
                sec1.toString()).redirectErrorStream(true).start();
        String output = new String(openssl.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
        assertTrue(openssl.waitFor(30, TimeUnit.SECONDS) && openssl.exitValue() == 0, output);
        assertTrue(Files.readString(sec1).startsWith("-----BEGIN EC PRIVATE KEY-----"), "not SEC1");

        AsyncResult<Answer> result = send(presenting(ca.certificate("emqx-client"), sec1));
        assertTrue(result.succeeded(), () -> "refused: " + result.cause());
        assertEquals(1, requests.get());
    }

    @Test
    void withoutACertificateTheRequestNeverReachesTheServer() throws Exception {
        AsyncResult<Answer> result = send(new ClientTls(Optional.of(ca.caCertificate())));
        assertTrue(result.failed(), "a server requiring a client certificate answered without one");
        assertEquals(0, requests.get());
    }

    @Test
    void aCertificateOfAnotherCaNeverReachesTheServer() throws Exception {
        LocalCa other = LocalCa.in(dir.resolve("other")).issue("emqx-client");
        AsyncResult<Answer> result = send(presenting(other.certificate("emqx-client"), other.key("emqx-client")));
        assertTrue(result.failed(), "a client certificate of an unknown CA was accepted");
        assertEquals(0, requests.get());
    }

    private ClientTls presenting(Path certificate, Path key) {
        return new ClientTls(Optional.of(ca.caCertificate()), Optional.of(new ClientCertificate(certificate, key)));
    }

    private AsyncResult<Answer> send(ClientTls tls) throws Exception {
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
