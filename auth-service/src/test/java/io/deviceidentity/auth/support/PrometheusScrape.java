package io.deviceidentity.auth.support;

import io.deviceidentity.metrics.PrometheusText;
import io.deviceidentity.testsupport.ManagementInterface;

/**
 * Reads the service's metrics the way Prometheus does (GET /q/metrics, text format), for tests that run against the
 * packaged artifact and so cannot inject the MeterRegistry.
 */
public final class PrometheusScrape {

    private PrometheusScrape() {
    }

    /**
     * The sum of the series {@code selector} picks ({@code x_seconds_count}, or {@code x_total{reason="y"}}: the series
     * carrying those labels), 0 if absent.
     */
    public static double sum(String selector) {
        return PrometheusText.sum(ManagementInterface.metrics(), selector);
    }

    /** The same, from another instance whose management interface is on {@code port}. */
    public static double sum(int port, String selector) {
        return PrometheusText.sum(ManagementInterface.metrics(port), selector);
    }
}
