package io.deviceidentity.loadtest.metrics;

import java.util.HashMap;
import java.util.Map;
import java.util.Set;

/**
 * Reads the Prometheus text exposition format (what Quarkus/Micrometer serve at {@code /q/metrics}), keeping only
 * the wanted metric names and summing each over its label sets. Comments, unknown names and unreadable lines are
 * skipped; a name that never appears is simply absent from the result.
 */
public final class PrometheusText {

    private PrometheusText() {
    }

    public static Map<String, Double> parse(String text, Set<String> wanted) {
        Map<String, Double> values = new HashMap<>();
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
            if (!wanted.contains(name)) {
                continue;
            }
            int valueStart = nameEnd;
            if (valueStart < line.length() && line.charAt(valueStart) == '{') {
                valueStart = endOfLabels(line, valueStart);
                if (valueStart < 0) {
                    continue;
                }
            }
            String[] rest = line.substring(valueStart).strip().split("\\s+");
            Double value = number(rest[0]);
            if (value != null) {
                values.merge(name, value, Double::sum);
            }
        }
        return values;
    }

    /** Index just after the closing brace of the label set starting at {@code open}; -1 if it never closes. */
    private static int endOfLabels(String line, int open) {
        boolean quoted = false;
        for (int i = open + 1; i < line.length(); i++) {
            char c = line.charAt(i);
            if (quoted && c == '\\') {
                i++;
            } else if (c == '"') {
                quoted = !quoted;
            } else if (!quoted && c == '}') {
                return i + 1;
            }
        }
        return -1;
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
