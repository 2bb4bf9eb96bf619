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
        int i = open + 1;
        while (i < text.length()) {
            while (i < text.length() && (text.charAt(i) == ',' || Character.isWhitespace(text.charAt(i)))) {
                i++;
            }
            if (i < text.length() && text.charAt(i) == '}') {
                return i + 1;
            }
            int eq = text.indexOf('=', i);
            boolean regex = eq >= 0 && eq + 1 < text.length() && text.charAt(eq + 1) == '~';
            int quote = regex ? eq + 2 : eq + 1;
            if (eq < 0 || quote >= text.length() || text.charAt(quote) != '"') {
                return -1;
            }
            String key = text.substring(i, eq).strip();
            StringBuilder value = new StringBuilder();
            i = PrometheusText.quoted(text, quote, value);
            if (i < 0) {
                return -1;
            }
            if (regex) {
                try {
                    matching.put(key, Pattern.compile(value.toString()));
                } catch (PatternSyntaxException notARegex) {
                    return -1;
                }
            } else {
                labels.put(key, value.toString());
            }
        }
        return -1;
    }
}
