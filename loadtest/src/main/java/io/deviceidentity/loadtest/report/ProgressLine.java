package io.deviceidentity.loadtest.report;

import java.io.PrintStream;
import java.util.Map;
import java.util.stream.Collectors;

/**
 * The line printed every second while a run goes: on a terminal it is rewritten in place, otherwise (CI logs,
 * {@code make bench} piped to a file) one line per second.
 */
public final class ProgressLine {

    public enum Mode { AUTO, TTY, LINES, NONE }

    private final PrintStream out;
    private final boolean inPlace;
    private final boolean enabled;
    private final String label;

    public ProgressLine(PrintStream out, Mode mode, String label) {
        this.out = out;
        this.enabled = mode != Mode.NONE;
        this.inPlace = mode == Mode.TTY || (mode == Mode.AUTO && System.console() != null);
        this.label = label;
    }

    public void show(SecondStats s, int totalSeconds) {
        if (!enabled) {
            return;
        }
        String answers = s.answers().entrySet().stream()
                .map((Map.Entry<String, Long> e) -> e.getKey() + "=" + e.getValue())
                .collect(Collectors.joining(" "));
        String db = s.pgConnections() == null && s.pgbouncerClients() == null ? ""
                : String.format(" | db pg=%s bouncer=%s", dash(s.pgConnections()), dash(s.pgbouncerClients()));
        String lag = s.generatorLagMs() >= 200 ? " | generator lag " + s.generatorLagMs() + " ms" : "";
        String line = String.format("[%s %3d/%ds] offered %d/s (fresh %d, retry %d) goodput %d/s | %s timeout=%d "
                        + "late=%d | p50 %.0f p99 %.0f max %.0f ms | inflight %d queued %d%s%s",
                label, s.second(), totalSeconds, s.offered(), s.freshAttempts(), s.retries(), s.goodput(),
                answers.isEmpty() ? "-" : answers, s.timeouts(), s.answersAfterTimeout(), s.latency().p50Ms(),
                s.latency().p99Ms(), s.latency().maxMs(), s.inFlight(), s.queued(), db, lag);
        if (inPlace) {
            out.print("\r\033[K" + line);
        } else {
            out.println(line);
        }
        out.flush();
    }

    public void finish() {
        if (enabled && inPlace) {
            out.println();
        }
    }

    private static String dash(Integer value) {
        return value == null ? "-" : value.toString();
    }
}
