package io.deviceidentity.loadtest.devices;

import java.time.Duration;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/** Parses the short durations used on the command line: {@code 500ms}, {@code 12s}, {@code 1m}, {@code 1.5s}. */
public final class Durations {

    private static final Pattern SHORT = Pattern.compile("(\\d+(?:\\.\\d+)?)(ms|s|m)");

    private Durations() {
    }

    public static Duration parse(String text) {
        Matcher m = SHORT.matcher(text.trim());
        if (!m.matches()) {
            throw new IllegalArgumentException("not a duration: '" + text + "' (examples: 500ms, 12s, 1m)");
        }
        double value = Double.parseDouble(m.group(1));
        double millis = switch (m.group(2)) {
            case "ms" -> value;
            case "s" -> value * 1_000;
            default -> value * 60_000;
        };
        return Duration.ofNanos(Math.round(millis * 1_000_000));
    }

    public static String format(Duration duration) {
        long millis = duration.toMillis();
        return millis % 1000 == 0 ? millis / 1000 + "s" : millis + "ms";
    }
}
