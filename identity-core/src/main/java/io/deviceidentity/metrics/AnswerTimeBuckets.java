package io.deviceidentity.metrics;

import java.time.Duration;
import java.util.stream.Stream;

import jakarta.enterprise.inject.Produces;
import jakarta.inject.Singleton;

import io.micrometer.core.instrument.Meter;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.core.instrument.distribution.DistributionStatisticConfig;

/**
 * Histogram buckets for the HTTP answer times ({@code http_server_requests_seconds_bucket}), so that Prometheus can
 * compute a p99 ({@code histogram_quantile}) for the chart's latency alert. A dozen boundaries from 5 ms to 10 s,
 * dense around the deadlines (EMQX's request_timeout, auth-service's 4 s, registration-service's), instead of
 * Micrometer's percentile histogram of about seventy buckets per series.
 */
public class AnswerTimeBuckets {

    /** Upper bounds of the buckets. */
    static final Duration[] BOUNDS = Stream.of(5, 10, 25, 50, 100, 250, 500, 1000, 2000, 3000, 4000, 5000, 10000)
            .map(Duration::ofMillis).toArray(Duration[]::new);

    private static final String HTTP_SERVER_REQUESTS = "http.server.requests";

    @Produces
    @Singleton
    MeterFilter answerTimeBuckets() {
        double[] nanos = Stream.of(BOUNDS).mapToDouble(Duration::toNanos).toArray();
        return new MeterFilter() {
            @Override
            public DistributionStatisticConfig configure(Meter.Id id, DistributionStatisticConfig config) {
                if (!id.getName().equals(HTTP_SERVER_REQUESTS)) {
                    return config;
                }
                return DistributionStatisticConfig.builder().serviceLevelObjectives(nanos).build().merge(config);
            }
        };
    }
}
