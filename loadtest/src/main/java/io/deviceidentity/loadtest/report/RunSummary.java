package io.deviceidentity.loadtest.report;

import java.util.List;
import java.util.Map;

/** Everything summary.json holds: what was run, the totals, the database peaks and the per-second series. */
public record RunSummary(
        String label,
        String startedAt,
        Map<String, Object> settings,
        RunTotals totals,
        DatabasePeaks database,
        List<SecondStats> seconds) {

    /** Peak client connections seen; null when not observed. */
    public record DatabasePeaks(Integer peakPostgresConnections, Integer peakPgbouncerClients, String problem) {
    }
}
