package io.deviceidentity.metrics;

import java.util.ArrayList;
import java.util.HashMap;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;

/**
 * Reads the Prometheus text exposition format (what Quarkus/Micrometer serve at {@code /q/metrics}): the one parser
 * of it in the repository (the load generator's scrapes, {@code loadtest metrics} for the scripts and
 * k8s/e2e-checks.sh, the services' tests), so that a renamed metric is changed in one place. Pure JDK, so that the
 * load generator can carry it without the rest of this module's dependencies. Comments and unreadable lines are
 * skipped; a name that never appears is simply absent from the result.
 */
public final class PrometheusText {

    /** One sample line: its name, its labels in the page's order, its value. */
    public record Sample(String name, Map<String, String> labels, double value) {

        /** The series as the page writes it: {@code name{k="v",...}} (label values escaped again). */
        public String series() {
            if (labels.isEmpty()) {
                return name;
            }
            StringBuilder out = new StringBuilder(name).append('{');
            labels.forEach((k, v) -> out.append(out.charAt(out.length() - 1) == '{' ? "" : ",").append(k).append("=\"")
                    .append(v.replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")).append('"'));
            return out.append('}').toString();
        }
    }

    private PrometheusText() {
    }

    /** The wanted names, each summed over its label sets. */
    public static Map<String, Double> parse(String text, Set<String> wanted) {
        Map<String, Double> values = new HashMap<>();
        for (Sample sample : samples(text)) {
            if (wanted.contains(sample.name())) {
                values.merge(sample.name(), sample.value(), Double::sum);
            }
        }
        return values;
    }

    /** The sum of every sample the selector matches; 0 when none does. */
    public static double sum(String text, MetricSelector selector) {
        return samples(text).stream().filter(selector::matches).mapToDouble(Sample::value).sum();
    }

    /** The same, the selector written as a series ({@link MetricSelector#parse}). */
    public static double sum(String text, String selector) {
        return sum(text, MetricSelector.parse(selector));
    }

    /** Every readable sample of the page, in its order (non-finite values, e.g. NaN, are left out). */
    public static List<Sample> samples(String text) {
        List<Sample> samples = new ArrayList<>();
        for (String raw : text.split("\n")) {
            String line = raw.strip();
            if (line.isEmpty() || line.startsWith("#")) {
                continue;
            }
            int nameEnd = 0;
            while (nameEnd < line.length() && line.charAt(nameEnd) != '{' && !Character.isWhitespace(line.charAt(nameEnd))) {
                nameEnd++;
            }
            String name = line.substring(0, nameEnd);
            Map<String, String> labels = new LinkedHashMap<>();
            int valueStart = nameEnd;
            if (valueStart < line.length() && line.charAt(valueStart) == '{') {
                valueStart = labels(line, valueStart, labels);
                if (valueStart < 0) {
                    continue;
                }
            }
            String[] rest = line.substring(valueStart).strip().split("\\s+");
            Double value = number(rest[0]);
            if (!name.isEmpty() && value != null) {
                samples.add(new Sample(name, labels, value));
            }
        }
        return samples;
    }

    /** Takes one label of a set: its key, whether it was written {@code =~}, its unescaped value; false refuses it. */
    interface LabelReader {
        boolean read(String key, boolean regex, String value);
    }

    /**
     * Reads the label set starting at {@code open} into {@code into}; returns the index just after its closing brace,
     * -1 if it never closes or is not {@code k="v"} pairs.
     */
    static int labels(String text, int open, Map<String, String> into) {
        // A page writes k="v" only; a =~ there makes the line unreadable.
        return labels(text, open, (key, regex, value) -> {
            into.put(key, value);
            return !regex;
        });
    }

    /**
     * Reads the label set starting at {@code open}, each {@code k="v"} or {@code k=~"v"} handed to {@code reader};
     * returns the index just after its closing brace, -1 if it never closes, is not such pairs or the reader refuses one.
     */
    static int labels(String text, int open, LabelReader reader) {
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
            StringBuilder value = new StringBuilder();
            int end = quoted(text, quote, value);
            if (end < 0 || !reader.read(text.substring(i, eq).strip(), regex, value.toString())) {
                return -1;
            }
            i = end;
        }
        return -1;
    }

    /**
     * Reads the quoted label value starting at {@code quote} (a {@code "}) into {@code into}, unescaping {@code \\},
     * {@code \"} and {@code \n}; returns the index just after its closing quote, -1 if it never closes.
     */
    static int quoted(String text, int quote, StringBuilder into) {
        int j = quote + 1;
        for (; j < text.length() && text.charAt(j) != '"'; j++) {
            char c = text.charAt(j);
            if (c == '\\' && j + 1 < text.length()) {
                char next = text.charAt(++j);
                into.append(next == 'n' ? '\n' : next);
            } else {
                into.append(c);
            }
        }
        return j < text.length() ? j + 1 : -1;
    }

    private static Double number(String text) {
        try {
            double value = switch (text) {
                case "+Inf" -> Double.POSITIVE_INFINITY;
                case "-Inf" -> Double.NEGATIVE_INFINITY;
                default -> Double.parseDouble(text);
            };
            return Double.isFinite(value) ? value : null;
        } catch (NumberFormatException notANumber) {
            return null;
        }
    }
}
