package io.deviceidentity.loadtest.report;

import java.util.List;

import com.fasterxml.jackson.annotation.JsonProperty;

import io.deviceidentity.loadtest.metrics.MetricsSnapshot;

/**
 * The share of bcrypt verifications whose result nobody read, over a window:
 * {@code (200 answers that arrived late + Δ identity_bcrypt_wasted_total) ÷ Δ identity_bcrypt_duration_seconds_count}.
 * A late 200 is a bcrypt EMQX dropped unread; {@code identity_bcrypt_wasted_total} (the service's own count) is a
 * bcrypt that finished after its request had already been answered 503 deadline. Both deltas come from scraping the
 * service's {@code /q/metrics} at the window's start and end. A metric that was not there counts as 0 and is named
 * in {@code missing}; {@code fraction} is null when no bcrypt count is known (scrape off, failed, or zero).
 */
public record WastedWork(Double fraction, @JsonProperty("late_200") long late200, Double bcryptsDone, Double bcryptsWastedByService,
        List<String> missing, String problem) {

    public static final String BCRYPTS_DONE = "identity_bcrypt_duration_seconds_count";
    public static final String BCRYPTS_WASTED = "identity_bcrypt_wasted_total";

    public static WastedWork notMeasured(long late200, String why) {
        return new WastedWork(null, late200, null, null, List.of(BCRYPTS_DONE, BCRYPTS_WASTED), why);
    }

    /** From the two scrapes that bracket the window and the late 200s counted in it. */
    public static WastedWork between(MetricsSnapshot start, MetricsSnapshot end, long late200) {
        if (start.problem() != null || end.problem() != null) {
            return notMeasured(late200, start.problem() != null ? start.problem() : end.problem());
        }
        List<String> missing = List.of(BCRYPTS_DONE, BCRYPTS_WASTED).stream()
                .filter(name -> !start.has(name) || !end.has(name)).toList();
        double done = delta(start, end, BCRYPTS_DONE);
        double wasted = delta(start, end, BCRYPTS_WASTED);
        Double fraction = done > 0 ? Math.min(1.0, Math.max(0.0, (late200 + wasted) / done)) : null;
        return new WastedWork(fraction == null ? null : Math.round(fraction * 1000) / 1000.0, late200,
                missing.contains(BCRYPTS_DONE) ? null : done, missing.contains(BCRYPTS_WASTED) ? null : wasted,
                missing, null);
    }

    private static double delta(MetricsSnapshot start, MetricsSnapshot end, String name) {
        return Math.max(0, end.value(name) - start.value(name));
    }
}
