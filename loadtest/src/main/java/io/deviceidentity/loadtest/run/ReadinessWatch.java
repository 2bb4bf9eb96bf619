package io.deviceidentity.loadtest.run;

import java.io.PrintStream;
import java.time.Duration;

import io.deviceidentity.loadtest.emqx.ServiceEndpoints;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

/**
 * The kubelet's readiness probe for replicas that join during the run: every period, GET /q/health/ready on each
 * replica that is not an endpoint yet, on its management interface (its port + the offset, plain HTTP); the first 200 makes it one ({@link ServiceEndpoints#ready}). Its own HTTP
 * client, so the probe never waits behind EMQX's connections.
 */
final class ReadinessWatch {

    private final Vertx vertx;
    private final ServiceEndpoints service;
    private final long periodMillis;
    private final int portOffset;
    private final PrintStream console;
    private final HttpClient http;
    private final long startNanos = System.nanoTime();
    private long timer = -1;

    ReadinessWatch(Vertx vertx, ServiceEndpoints service, Duration period, int portOffset, PrintStream console) {
        this.vertx = vertx;
        this.service = service;
        this.periodMillis = Math.max(1, period.toMillis());
        this.portOffset = portOffset;
        this.console = console;
        // The kubelet's probe timeout (timeoutSeconds default 1 s).
        this.http = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout(1000).setIdleTimeout(1));
    }

    void start() {
        if (!service.joining().isEmpty()) {
            timer = vertx.setPeriodic(periodMillis, id -> probe());
        }
    }

    private void probe() {
        for (ServiceEndpoints.Endpoint endpoint : service.joining()) {
            http.request(new RequestOptions().setMethod(HttpMethod.GET).setHost(endpoint.url().getHost())
                            .setPort(endpoint.url().getPort() + portOffset).setURI("/q/health/ready")
                            .setTimeout(1000))
                    .compose(req -> req.send())
                    .onSuccess(response -> {
                        response.body();
                        if (response.statusCode() == 200 && !endpoint.ready()) {
                            service.ready(endpoint);
                            console.printf("%s (%s) ready at %.1f s: an endpoint of the Service now%n", endpoint.name(),
                                    endpoint.url(), (System.nanoTime() - startNanos) / 1e9);
                        }
                    });
        }
        if (service.joining().isEmpty()) {
            stop();
        }
    }

    void stop() {
        if (timer >= 0) {
            vertx.cancelTimer(timer);
            timer = -1;
        }
        http.close();
    }
}
