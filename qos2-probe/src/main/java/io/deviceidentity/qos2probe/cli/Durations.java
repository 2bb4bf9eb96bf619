package io.deviceidentity.qos2probe.cli;

import java.time.Duration;

import picocli.CommandLine;

/** picocli converter for 500ms / 10s / 5m / 2h (the spelling of loadtest's and EMQX's durations). */
public final class Durations implements CommandLine.ITypeConverter<Duration> {

    @Override
    public Duration convert(String value) {
        return parse(value);
    }

    public static Duration parse(String value) {
        String v = value.trim();
        try {
            if (v.endsWith("ms")) {
                return Duration.ofMillis(Long.parseLong(v.substring(0, v.length() - 2)));
            }
            long n = Long.parseLong(v.substring(0, v.length() - 1));
            return switch (v.charAt(v.length() - 1)) {
                case 's' -> Duration.ofSeconds(n);
                case 'm' -> Duration.ofMinutes(n);
                case 'h' -> Duration.ofHours(n);
                default -> throw new CommandLine.TypeConversionException("expected e.g. 500ms, 10s, 5m: " + value);
            };
        } catch (NumberFormatException | StringIndexOutOfBoundsException e) {
            throw new CommandLine.TypeConversionException("expected e.g. 500ms, 10s, 5m: " + value);
        }
    }
}
