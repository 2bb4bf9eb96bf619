package io.deviceidentity.metrics;

import java.util.LinkedHashMap;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.regex.PatternSyntaxException;

import io.deviceidentity.metrics.PrometheusText.Sample;

/**
 * Which series of a metrics page a value is read from, written as Prometheus writes a series:
 * {@code name} (every label set of that name, summed) or {@code name{k="v",k2=~"regex",...}} (the series carrying
 * those labels, a {@code =~} value matching the whole regular expression, summed), as PromQL's instant selectors match.
 */
public record MetricSelector(String name, Map<String, String> labels, Map<String, Pattern> matching) {

    public static MetricSelector parse(String text) {
        String trimmed = text.strip();
        int open = trimmed.indexOf('{');
        String name = open < 0 ? trimmed : trimmed.substring(0, open);
        if (!name.matches("[a-zA-Z_:][a-zA-Z0-9_:]*")) {
            throw new IllegalArgumentException("not a metric name: '" + text + "'");
        }
        Map<String, String> labels = new LinkedHashMap<>();
        Map<String, Pattern> matching = new LinkedHashMap<>();
        if (open >= 0 && matchers(trimmed, open, labels, matching) != trimmed.length()) {
            throw new IllegalArgumentException("not a label set name{key=\"value\",key=~\"regex\",...}: '" + text + "'");
        }
        return new MetricSelector(name, Map.copyOf(labels), Map.copyOf(matching));
    }

    public boolean matches(Sample sample) {
        return sample.name().equals(name) && sample.labels().entrySet().containsAll(labels.entrySet())
                && matching.entrySet().stream().allMatch(m -> sample.labels().containsKey(m.getKey())
                        && m.getValue().matcher(sample.labels().get(m.getKey())).matches());
    }

    /** Reads {@code {k="v",k=~"re",...}} from {@code open}; the index after the closing brace, -1 when malformed. */
    private static int matchers(String text, int open, Map<String, String> labels, Map<String, Pattern> matching) {
        return PrometheusText.labels(text, open, (key, regex, value) -> {
            if (!regex) {
                labels.put(key, value);
                return true;
            }
            try {
                matching.put(key, Pattern.compile(value));
                return true;
            } catch (PatternSyntaxException notARegex) {
                return false;
            }
        });
    }
}
