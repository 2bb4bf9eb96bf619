package io.deviceidentity.loadtest.metrics;

import java.util.LinkedHashMap;
import java.util.Map;

import io.deviceidentity.loadtest.metrics.PrometheusText.Sample;

/**
 * Which series of a metrics page a value is read from, written as Prometheus writes a series:
 * {@code name} (every label set of that name, summed) or {@code name{k="v",...}} (the series carrying at least those
 * labels, summed), as PromQL's instant selectors match.
 */
public record MetricSelector(String name, Map<String, String> labels) {

    public static MetricSelector parse(String text) {
        String trimmed = text.strip();
        int open = trimmed.indexOf('{');
        String name = open < 0 ? trimmed : trimmed.substring(0, open);
        if (!name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
            throw new IllegalArgumentException("not a metric name: '" + text + "'");
        }
        Map<String, String> labels = new LinkedHashMap<>();
        if (open >= 0 && PrometheusText.labels(trimmed, open, labels) != trimmed.length()) {
            throw new IllegalArgumentException("not a label set name{key=\"value\",...}: '" + text + "'");
        }
        return new MetricSelector(name, Map.copyOf(labels));
    }

    public boolean matches(Sample sample) {
        return sample.name().equals(name) && sample.labels().entrySet().containsAll(labels.entrySet());
    }
}
