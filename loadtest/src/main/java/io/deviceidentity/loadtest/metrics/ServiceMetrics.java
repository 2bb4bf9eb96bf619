package io.deviceidentity.loadtest.metrics;

import java.net.URI;
import java.util.Set;

import io.deviceidentity.metrics.PrometheusText;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.http.HttpClient;
import io.vertx.core.http.HttpClientOptions;
import io.vertx.core.http.HttpMethod;
import io.vertx.core.http.RequestOptions;

/**
 * Scrapes a few of auth-service's Prometheus metrics with one small GET (its own connection, never one of the
 * EMQX workers'). A failed or slow scrape yields a snapshot that says why; it never fails the run.
 */
public final class ServiceMetrics {

    private static final long TIMEOUT_MILLIS = 3_000;

    private final HttpClient http;
    private final URI url;
    private final Set<String> names;

    public ServiceMetrics(Vertx vertx, URI url, Set<String> names) {
        this.url = url;
        this.names = names;
        this.http = vertx.createHttpClient(new HttpClientOptions().setConnectTimeout((int) TIMEOUT_MILLIS));
    }

    public Future<MetricsSnapshot> scrape() {
        RequestOptions request = new RequestOptions().setMethod(HttpMethod.GET).setHost(url.getHost())
                .setPort(url.getPort() > 0 ? url.getPort() : 80).setURI(url.getRawPath())
                .setTimeout(TIMEOUT_MILLIS).putHeader("accept", "text/plain");
        return http.request(request)
                .compose(req -> req.send())
                .compose(response -> response.body().map(body -> response.statusCode() == 200
                        ? new MetricsSnapshot(PrometheusText.parse(body.toString(), names), null)
                        : MetricsSnapshot.failed(url + " answered " + response.statusCode())))
                .otherwise(failure -> MetricsSnapshot.failed(url + ": " + failure.getMessage()));
    }

    public Future<Void> close() {
        return http.close();
    }
}
