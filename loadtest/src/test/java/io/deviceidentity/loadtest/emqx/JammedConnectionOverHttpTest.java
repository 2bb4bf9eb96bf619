package io.deviceidentity.loadtest.emqx;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.net.URI;
import java.time.Duration;
import java.util.Optional;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;

/**
 * The zombie-connection rule against a real HTTP server on loopback that never answers the first request and answers
 * every later one: the client drops the connection once nothing was answered for {@code max_inactive} after the
 * request's expiry, and the next call is sent and answered on a new TCP connection instead of waiting behind the
 * unanswered request until its own expiry. {@code max_inactive} is shortened from EMQX's 10 s so the test is quick.
 */
class JammedConnectionOverHttpTest {

    private static final Duration REQUEST_TIMEOUT = Duration.ofMillis(200);
    private static final Duration MAX_INACTIVE = Duration.ofMillis(300);

    private Vertx vertx;
    private int port;
    private final AtomicInteger connections = new AtomicInteger();
    private final AtomicInteger requests = new AtomicInteger();

    @BeforeEach
    void startAServerThatHoldsItsFirstRequest() throws Exception {
        vertx = Vertx.vertx();
        port = vertx.createHttpServer()
                .connectionHandler(connection -> connections.incrementAndGet())
                .requestHandler(request -> {
                    if (requests.incrementAndGet() == 1) {
                        return; // held: never answered
                    }
                    request.response().putHeader("content-type", "application/json").end("{\"result\":\"allow\"}");
                })
                .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS)
                .actualPort();
    }

    @AfterEach
    void stop() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void aCallAfterTheJamIsAnsweredOnANewConnection() throws Exception {
        CompletableFuture<Answer> first = new CompletableFuture<>();
        CompletableFuture<Answer> later = new CompletableFuture<>();
        RecordingListener listener = new RecordingListener();
        vertx.runOnContext(ignored -> {
            EmqxAuthnClient client = new EmqxAuthnClient(vertx, URI.create("http://127.0.0.1:" + port + "/mqtt/authn"),
                    new ClientTls(Optional.empty()), 1, 1, REQUEST_TIMEOUT, MAX_INACTIVE, listener);
            client.authenticate(Buffer.buffer("{}"), first::complete);
            // Well past the expiry (0.2 s) plus max_inactive (0.3 s).
            vertx.setTimer(900, id -> client.authenticate(Buffer.buffer("{}"), later::complete));
        });

        assertEquals(Answer.TIMEOUT, first.get(10, TimeUnit.SECONDS));
        assertEquals(new Answer(200, "allow"), later.get(10, TimeUnit.SECONDS),
                "answered in time on a new connection, not left behind the held request");
        assertEquals(2, connections.get(), "the held request's connection was dropped and a new one opened");
        assertEquals(2, requests.get());
    }
}
