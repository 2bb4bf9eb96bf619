package io.deviceidentity.auth.authn;

import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import com.fasterxml.jackson.databind.ObjectMapper;

import io.deviceidentity.http.ErrorResponses;
import io.deviceidentity.overload.ServiceUnavailableException;
import io.vertx.core.AbstractVerticle;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServerOptions;
import io.vertx.core.net.PemKeyCertOptions;
import jakarta.ws.rs.core.Response;

/**
 * The floor under every answer auth-service gives: a bare Vert.x HTTP server (the service's Vert.x and Netty, its
 * certificate, as many event loops and server instances as the service has in the same pod) that reads each
 * request's body and writes the service's own storm refusal (503 overload, rendered by {@link ErrorResponses} and
 * written by {@link VertxRoutes#send}) without deciding anything: no router, no metrics, no {@link Authenticator}.
 * {@code make bench} runs it in a pod-sized cgroup at a storm's request rate (scripts/bench-pods.sh, the answer
 * floor): the CPU it spends per answer is what the kernel's loopback TCP, TLS and HTTP/1.1 cost on that machine before
 * any of the service's own work, the part of a refused answer that no change to the service can remove.
 *
 * <pre>
 *   java -cp refusal-bench.jar io.deviceidentity.auth.authn.AnswerFloorServer --port N --event-loops N
 *        [--cert PEM --key PEM]
 * </pre>
 * Without {@code --cert} and {@code --key} it serves plain HTTP. It runs until it is killed.
 */
public final class AnswerFloorServer implements AutoCloseable {

    static final String USAGE = "usage: AnswerFloorServer --port N --event-loops N [--cert PEM --key PEM]";

    /** What the command line asks for; {@link #parse} refuses anything else. */
    record Settings(int port, int eventLoops, String cert, String key) {
        boolean tls() {
            return cert != null;
        }
    }

    private final Vertx vertx;
    private final List<String> deployments;

    private AnswerFloorServer(Vertx vertx, List<String> deployments) {
        this.vertx = vertx;
        this.deployments = deployments;
    }

    public static void main(String[] args) throws Exception {
        Settings settings;
        try {
            settings = parse(args);
        } catch (IllegalArgumentException e) {
            System.err.println(e.getMessage());
            System.err.println(USAGE);
            System.exit(2);
            return;
        }
        start(settings);
        System.out.println("answer floor listening on 127.0.0.1:" + settings.port() + (settings.tls() ? " (HTTPS)" : ""));
    }

    static Settings parse(String... args) {
        Integer port = null;
        Integer eventLoops = null;
        String cert = null;
        String key = null;
        for (int i = 0; i < args.length; i++) {
            String name = args[i];
            if (i + 1 >= args.length) {
                throw new IllegalArgumentException(name + " needs a value");
            }
            String value = args[++i];
            switch (name) {
                case "--port" -> port = number(name, value, 1, 65535);
                case "--event-loops" -> eventLoops = number(name, value, 1, 256);
                case "--cert" -> cert = value;
                case "--key" -> key = value;
                default -> throw new IllegalArgumentException("unknown option " + name);
            }
        }
        if (port == null || eventLoops == null) {
            throw new IllegalArgumentException("--port and --event-loops are required");
        }
        if ((cert == null) != (key == null)) {
            throw new IllegalArgumentException("--cert and --key go together");
        }
        return new Settings(port, eventLoops, cert, key);
    }

    private static int number(String name, String value, int min, int max) {
        try {
            int n = Integer.parseInt(value);
            if (n >= min && n <= max) {
                return n;
            }
        } catch (NumberFormatException e) {
            // answered below
        }
        throw new IllegalArgumentException(name + " must be a number from " + min + " to " + max + ", not " + value);
    }

    /** Listens on 127.0.0.1 with one server instance per event loop, as Quarkus deploys its HTTP server. */
    static AnswerFloorServer start(Settings settings) throws Exception {
        Vertx vertx = Vertx.vertx(new VertxOptions().setEventLoopPoolSize(settings.eventLoops()));
        HttpServerOptions options = new HttpServerOptions().setHost("127.0.0.1").setPort(settings.port());
        if (settings.tls()) {
            options.setSsl(true).setKeyCertOptions(new PemKeyCertOptions().setCertPath(settings.cert())
                    .setKeyPath(settings.key()));
        }
        ObjectMapper json = new ObjectMapper();
        Response refusal = ErrorResponses.answerFor(ServiceUnavailableException.overload("bcrypt is saturated"))
                .response();
        List<String> deployments = new java.util.ArrayList<>();
        for (int i = 0; i < settings.eventLoops(); i++) {
            CompletableFuture<String> deployed = vertx.deployVerticle(new AbstractVerticle() {
                @Override
                public void start(Promise<Void> started) {
                    vertx.createHttpServer(options)
                            .requestHandler(request -> request.body()
                                    .onSuccess(body -> VertxRoutes.send(request.response(), refusal, json)))
                            .listen()
                            .<Void>mapEmpty()
                            .onComplete(started);
                }
            }).toCompletionStage().toCompletableFuture();
            deployments.add(deployed.get(30, TimeUnit.SECONDS));
        }
        return new AnswerFloorServer(vertx, deployments);
    }

    int instances() {
        return deployments.size();
    }

    @Override
    public void close() throws Exception {
        vertx.close().toCompletionStage().toCompletableFuture().get(30, TimeUnit.SECONDS);
    }
}
