package io.deviceidentity.loadtest.report;

import java.util.List;
import java.util.Map;

/**
 * Everything summary.json holds: what was run, the steady state (the headline) and the whole counted run beside it,
 * the older whole-run totals, the database peaks and the per-second series.
 */
public record RunSummary(
        String label,
        String startedAt,
        Map<String, Object> settings,
        WindowSummary steadyState,
        WindowSummary wholeRun,
        RunTotals totals,
        DatabasePeaks database,
        List<SecondStats> seconds) {

    /** Peak client connections seen; null when not observed. */
    public record DatabasePeaks(Integer peakPostgresConnections, Integer peakPgbouncerClients, String problem) {
    }
}
