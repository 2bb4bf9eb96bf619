package io.deviceidentity.registration.support;

import java.io.IOException;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.Base64;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.CountDownLatch;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.TimeUnit;

import javax.net.ssl.SSLContext;

import com.sun.net.httpserver.HttpExchange;
import com.sun.net.httpserver.HttpServer;
import com.sun.net.httpserver.HttpsConfigurator;
import com.sun.net.httpserver.HttpsServer;

/**
 * A local HTTP server that answers EMQX 5.8.9's "kick out a client" call as EMQX does, for the kick worker's tests.
 * Every status, header and body comes from EMQX's source (emqx/emqx tag v5.8.9):
 * <ul>
 *   <li>{@code DELETE /api/v5/clients/:clientid} — {@code apps/emqx_management/src/emqx_mgmt_api_clients.erl},
 *       {@code kickout/1}: {@code 204} without a body when a session existed (it is ended before the answer: the
 *       kick is a synchronous call), else {@code 404} with {@code {"code":"CLIENTID_NOT_FOUND","message":"Client ID
 *       not found"}} ({@code ?CLIENTID_NOT_FOUND}).</li>
 *   <li>API key authentication — {@code apps/emqx_dashboard/src/emqx_dashboard.erl}: a missing or non-basic
 *       {@code Authorization} is {@code 401 AUTHORIZATION_HEADER_ERROR}, a wrong key or secret
 *       {@code 401 BAD_API_KEY_OR_SECRET} ("Check api_key/api_secret"), both with
 *       {@code WWW-Authenticate: Basic Realm="emqx-dashboard"} ({@code return_unauthorized/2}).</li>
 *   <li>Any other path is a bare 404, as a proxy or a wrong base URL would give: it must not be taken for
 *       "nothing to kick".</li>
 * </ul>
 * Over HTTPS when given a server TLS context (EMQX's {@code dashboard.listeners.https}, the chart's default).
 * It can be stopped and started again on the same port (EMQX down, then back), made slow (answers held until
 * released, the kick itself done at once, as a slow EMQX would), or made to answer 503 (a node still starting).
 */
public final class FakeEmqx implements AutoCloseable {

    /** One request as it arrived, and how it was answered. */
    public record Call(String method, String path, String clientId, int status) {
    }

    private final String key;
    private final String secret;
    private final SSLContext tls;
    private final Set<String> connected = ConcurrentHashMap.newKeySet();
    private final List<Call> calls = new CopyOnWriteArrayList<>();
    private final ExecutorService handlers = Executors.newCachedThreadPool();
    private volatile HttpServer server;
    private volatile int port;
    private volatile CountDownLatch slow = new CountDownLatch(0);
    private volatile boolean unavailable;

    public FakeEmqx(String key, String secret) {
        this(key, secret, null);
    }

    /** {@code tls}: the server side of HTTPS (e.g. {@code LocalCa.serving("emqx")}); null for plain HTTP. */
    public FakeEmqx(String key, String secret, SSLContext tls) {
        this.key = key;
        this.secret = secret;
        this.tls = tls;
        start(0);
    }

    private synchronized void start(int onPort) {
        try {
            InetSocketAddress address = new InetSocketAddress(InetAddress.getLoopbackAddress(), onPort);
            HttpServer created;
            if (tls == null) {
                created = HttpServer.create(address, 50);
            } else {
                HttpsServer https = HttpsServer.create(address, 50);
                https.setHttpsConfigurator(new HttpsConfigurator(tls));
                created = https;
            }
            created.createContext("/", this::handle);
            created.setExecutor(handlers);
            created.start();
            server = created;
            port = created.getAddress().getPort();
        } catch (IOException e) {
            throw new IllegalStateException("cannot start the fake EMQX on port " + onPort, e);
        }
    }

    public String url() {
        return (tls == null ? "http" : "https") + "://127.0.0.1:" + port;
    }

    public int port() {
        return port;
    }

    /** A device holds a session at this broker. */
    public void connect(String clientId) {
        connected.add(clientId);
    }

    public boolean isConnected(String clientId) {
        return connected.contains(clientId);
    }

    /** EMQX down: the port refuses connections. */
    public synchronized void stop() {
        if (server != null) {
            server.stop(0);
            server = null;
        }
    }

    /** EMQX back, on the same port. */
    public synchronized void restart() {
        if (server == null) {
            start(port);
        }
    }

    /** From now on, answers wait until {@link #release()} (the kick itself happens at once). */
    public void holdAnswers() {
        slow = new CountDownLatch(1);
    }

    public void release() {
        slow.countDown();
    }

    /** While set, every call is answered 503 and changes nothing. */
    public void unavailable(boolean value) {
        unavailable = value;
    }

    public List<Call> calls() {
        return new ArrayList<>(calls);
    }

    /** The kick calls for one client id, in order. */
    public List<Call> callsFor(String clientId) {
        return calls.stream().filter(call -> clientId.equals(call.clientId())).toList();
    }

    /** How many times a session of this client id was really ended (204). */
    public long kicked(String clientId) {
        return callsFor(clientId).stream().filter(call -> call.status() == 204).count();
    }

    private void handle(HttpExchange exchange) throws IOException {
        String path = exchange.getRequestURI().getRawPath();
        String method = exchange.getRequestMethod();
        String clientId = path.startsWith("/api/v5/clients/") ? path.substring("/api/v5/clients/".length()) : null;
        try (exchange) {
            if (unavailable) {
                record(method, path, clientId, 503);
                send(exchange, 503, "{\"code\":\"SERVICE_UNAVAILABLE\",\"message\":\"starting\"}");
                return;
            }
            String authorization = exchange.getRequestHeaders().getFirst("Authorization");
            if (authorization == null || !authorization.startsWith("Basic ")) {
                exchange.getResponseHeaders().add("WWW-Authenticate", "Basic Realm=\"emqx-dashboard\"");
                record(method, path, clientId, 401);
                send(exchange, 401, "{\"code\":\"AUTHORIZATION_HEADER_ERROR\",\"message\":\"Support authorization: basic/bearer \"}");
                return;
            }
            String expected = Base64.getEncoder().encodeToString((key + ":" + secret).getBytes(StandardCharsets.UTF_8));
            if (!authorization.substring("Basic ".length()).equals(expected)) {
                exchange.getResponseHeaders().add("WWW-Authenticate", "Basic Realm=\"emqx-dashboard\"");
                record(method, path, clientId, 401);
                send(exchange, 401, "{\"code\":\"BAD_API_KEY_OR_SECRET\",\"message\":\"Check api_key/api_secret\"}");
                return;
            }
            if (!"DELETE".equals(method) || clientId == null || clientId.isEmpty() || clientId.contains("/")) {
                record(method, path, clientId, 404);
                send(exchange, 404, "");
                return;
            }
            boolean wasConnected = connected.remove(clientId);
            int status = wasConnected ? 204 : 404;
            record(method, path, clientId, status);
            awaitRelease();
            if (wasConnected) {
                exchange.sendResponseHeaders(204, -1);
            } else {
                send(exchange, 404, "{\"code\":\"CLIENTID_NOT_FOUND\",\"message\":\"Client ID not found\"}");
            }
        } catch (IOException e) {
            // the caller gave up (a timeout): the kick above happened anyway, as at a slow EMQX
        }
    }

    private void awaitRelease() {
        try {
            slow.await(60, TimeUnit.SECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }

    private void record(String method, String path, String clientId, int status) {
        calls.add(new Call(method, path, clientId, status));
    }

    private static void send(HttpExchange exchange, int status, String body) throws IOException {
        byte[] bytes = body.getBytes(StandardCharsets.UTF_8);
        if (bytes.length == 0) {
            exchange.sendResponseHeaders(status, -1);
            return;
        }
        exchange.getResponseHeaders().add("Content-Type", "application/json");
        exchange.sendResponseHeaders(status, bytes.length);
        try (OutputStream out = exchange.getResponseBody()) {
            out.write(bytes);
        }
    }

    @Override
    public void close() {
        release();
        stop();
        handlers.shutdownNow();
    }
}
