package io.deviceidentity.loadtest.run;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.concurrent.TimeUnit;

import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;

import io.deviceidentity.loadtest.emqx.ServiceEndpoints;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpServer;

/**
 * A replica that joins during the run becomes an endpoint when its readiness answers on its management interface
 * (its port + the offset), as the services serve health there, not on the port EMQX calls.
 */
class ReadinessWatchTest {

    private final Vertx vertx = Vertx.vertx();

    @AfterEach
    void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }

    @Test
    void aJoiningReplicaIsReadyWhenItsManagementInterfaceSaysSo() throws Exception {
        HttpServer management = vertx.createHttpServer()
                .requestHandler(request -> request.response().setStatusCode(
                        request.path().equals("/q/health/ready") ? 200 : 404).end())
                .listen(0, "127.0.0.1").toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
        int offset = 1000;
        URI joining = URI.create("http://127.0.0.1:" + (management.actualPort() - offset) + "/mqtt/authn");
        ServiceEndpoints service = new ServiceEndpoints(List.of(URI.create("http://127.0.0.1:1/mqtt/authn")),
                List.of(joining), ServiceEndpoints.OnJoin.KEEP, 1);
        ServiceEndpoints.Endpoint replica = service.joining().get(0);
        assertFalse(replica.ready());

        ByteArrayOutputStream console = new ByteArrayOutputStream();
        ReadinessWatch watch = new ReadinessWatch(vertx, service, Duration.ofMillis(20), offset,
                new PrintStream(console, true));
        vertx.runOnContext(nothing -> watch.start());

        long until = System.nanoTime() + TimeUnit.SECONDS.toNanos(30);
        while (!replica.ready() && System.nanoTime() < until) {
            Thread.sleep(20);
        }
        assertTrue(replica.ready(), "never probed " + management.actualPort() + ": " + console);
    }
}
