package io.deviceidentity.loadtest.metrics;

import java.util.Map;

/** The service's metrics at one moment (name → value summed over label sets), or why they could not be read. */
public record MetricsSnapshot(Map<String, Double> values, String problem) {

    public static MetricsSnapshot failed(String problem) {
        return new MetricsSnapshot(Map.of(), problem);
    }

    public boolean has(String name) {
        return values.containsKey(name);
    }

    /** The value, 0 when the metric is missing. */
    public double value(String name) {
        return values.getOrDefault(name, 0.0);
    }
}
