package io.deviceidentity.readiness;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.ArrayList;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.function.IntFunction;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.enterprise.event.ObservesAsync;

import org.eclipse.microprofile.config.ConfigProvider;
import org.jboss.logging.Logger;

import io.quarkus.runtime.ImageMode;
import io.quarkus.runtime.LaunchMode;
import io.quarkus.vertx.http.HttpServerStart;
import io.quarkus.vertx.http.HttpsServerStart;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.ext.web.RoutingContext;

/**
 * Real requests to the service's own main port before it reports ready, so that a JVM pod's first storm finds its
 * request path compiled. Measured at 0.25 vCPU (docs/overload.md): the JIT took 41 % of the pod's CPU
 * during the first storm after readiness, and the same pod held 0.33 of its capacity in that storm against 0.85 in
 * the next; of the compilations in a storm almost all are the libraries a request crosses (Netty, Vert.x,
 * RESTEasy, Jackson, Micrometer, the PostgreSQL driver), which only a request through the listener runs. A native
 * image has no JIT: there this does nothing.
 *
 * <p>The requests carry a per-process random token in {@value #HEADER}; {@link #isSelfRequest} lets the answer
 * path keep them out of the outcome log and metrics. They cross the loopback interface only and carry nothing
 * secret (invented client ids, a password no device has), which is why the client trusts whatever certificate the
 * service presents: it is talking to itself.
 */
@ApplicationScoped
public class SelfRequests {

    private static final Logger LOG = Logger.getLogger(SelfRequests.class);
    static final String HEADER = "X-Identity-Warm-Up";

    private final Vertx vertx;
    private final byte[] token;
    private final String tokenText;
    private final AtomicInteger answered = new AtomicInteger();
    private volatile boolean listening;
    private volatile int port;
    private volatile boolean tls;

    public SelfRequests(Vertx vertx) {
        this.vertx = vertx;
        byte[] random = new byte[16];
        new SecureRandom().nextBytes(random);
        this.tokenText = HexFormat.of().formatHex(random);
        this.token = tokenText.getBytes(StandardCharsets.US_ASCII);
    }

    // Quarkus fires these asynchronously once the main listener is bound (VertxHttpRecorder). Their options hold the
    // configured port; a random one (0, the tests) is known from the value registry, which Quarkus exposes as config.
    void plainStarted(@ObservesAsync HttpServerStart started) {
        listening(started.options().getPort(), false);
    }

    void tlsStarted(@ObservesAsync HttpsServerStart started) {
        listening(started.options().getPort(), true);
    }

    private void listening(int configured, boolean https) {
        tls = https;
        port = configured;
        listening = true;
    }

    /** The main listener's port, or 0 while it is not known yet. */
    private int port() {
        if (!listening) {
            return 0;
        }
        if (port > 0) {
            return port;
        }
        String key = "quarkus.http." + (LaunchMode.current() == LaunchMode.TEST ? "test-" : "") + (tls ? "ssl-port" : "port");
        return ConfigProvider.getConfig().getOptionalValue(key, Integer.class).orElse(0);
    }

    /** Whether the request was sent by {@link #step} of this process. */
    public boolean isSelfRequest(RoutingContext context) {
        String value = context.request().getHeader(HEADER);
        return value != null && MessageDigest.isEqual(token, value.getBytes(StandardCharsets.US_ASCII));
    }

    /** How many self-requests have been answered since the start. */
    public int answered() {
        return answered.get();
    }

    /** One request to send: its path and JSON body. */
    public record Request(String path, String body) {
    }

    /**
     * A warm-up step that sends {@code count} requests, {@code connections} at a time, made by {@code request} from
     * their index, and fails (to be retried) while the listener is not up or any answer is 5xx. Nothing to do in a
     * native image or with {@code count} 0.
     */
    public WarmUpStep step(int count, int connections, IntFunction<Request> request) {
        return WarmUpStep.of("self-requests", () -> {
            if (count <= 0 || ImageMode.current().isNativeImage()) {
                return;
            }
            send(count, Math.max(1, connections), request);
        });
    }

    private void send(int count, int connections, IntFunction<Request> request) throws Exception {
        int to = port();
        if (to <= 0) {
            throw new IllegalStateException("the HTTP listener has not started yet");
        }
        long start = System.nanoTime();
        HttpClient client = vertx.createHttpClient(new HttpClientOptions().setSsl(tls).setTrustAll(true)
                .setVerifyHost(false).setMaxPoolSize(connections).setKeepAlive(true));
        try {
            List<CompletableFuture<Void>> lanes = new ArrayList<>();
            for (int lane = 0; lane < connections; lane++) {
                lanes.add(lane(client, to, lane, connections, count, request));
            }
            CompletableFuture.allOf(lanes.toArray(CompletableFuture[]::new)).get(5, TimeUnit.MINUTES);
        } finally {
            client.close();
        }
        LOG.infof("warm-up: %d requests to the service's own port %d in %d ms", count, to,
                TimeUnit.NANOSECONDS.toMillis(System.nanoTime() - start));
    }

    /** Requests lane, lane + lanes, lane + 2 × lanes, ... one after another: one request in flight per lane. */
    private CompletableFuture<Void> lane(HttpClient client, int to, int index, int lanes, int count,
            IntFunction<Request> request) {
        if (index >= count) {
            return CompletableFuture.completedFuture(null);
        }
        Request next = request.apply(index);
        return client.request(HttpMethod.POST, to, "127.0.0.1", next.path())
                .compose(sent -> sent.putHeader(HEADER, tokenText).putHeader("Content-Type", "application/json")
                        .send(Buffer.buffer(next.body())))
                .compose(answer -> answer.body().map(ignored -> answer.statusCode()))
                .toCompletionStage().toCompletableFuture()
                .thenCompose(status -> {
                    answered.incrementAndGet();
                    if (status >= 500) {
                        throw new IllegalStateException("the service answered its own warm-up request " + status);
                    }
                    return lane(client, to, index + lanes, lanes, count, request);
                });
    }
}
