package io.deviceidentity.loadtest.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import io.deviceidentity.loadtest.fastpath.StormReport;
import io.deviceidentity.loadtest.report.Comparison;
import io.deviceidentity.loadtest.report.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code compare}: the side-by-side table of several runs against a measured capacity. */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Print runs side by side against the capacity run and write comparison.txt/json and index.html; "
                + "with --known-run/--pgbench/--mixed-run also the fast path's storms (fast-path.txt/json).")
public final class CompareCommand implements Callable<Integer> {

    @Option(names = "--capacity", required = true, paramLabel = "SUMMARY_JSON",
            description = "summary.json of the closed-loop capacity run.")
    Path capacity;

    @Option(names = "--run", paramLabel = "LABEL=SUMMARY_JSON",
            description = "An overload run to show as a row, in order (repeatable).")
    Map<String, Path> runs = new LinkedHashMap<>();

    @Option(names = "--known-run", paramLabel = "LABEL=SUMMARY_JSON",
            description = "A known-device reconnect storm run (closed loop or open step), in order (repeatable).")
    Map<String, Path> knownRuns = new LinkedHashMap<>();

    @Option(names = "--pgbench", paramLabel = "LABEL=PGBENCH_OUTPUT",
            description = "pgbench's printed output for the service's credential query (repeatable); the best tps is "
                    + "the known storm's denominator.")
    Map<String, Path> pgbench = new LinkedHashMap<>();

    @Option(names = "--mixed-run", paramLabel = "LABEL=SUMMARY_JSON",
            description = "A mixed storm run (population parts 'known' and 'cold'), repeatable.")
    Map<String, Path> mixedRuns = new LinkedHashMap<>();

    @Option(names = "--known-cost", paramLabel = "COST",
            description = "The bcrypt cost the known devices were seeded at (said beside the known storm).")
    Integer knownCost;

    @Option(names = "--out", defaultValue = "target/loadtest", description = "Where to write (default: ${DEFAULT-VALUE}).")
    Path out;

    @Override
    public Integer call() throws Exception {
        if (runs.isEmpty() && knownRuns.isEmpty() && pgbench.isEmpty() && mixedRuns.isEmpty()) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "nothing to compare: give --run, --known-run, --pgbench or --mixed-run");
        }
        Comparison comparison = Comparison.load(capacity, runs);
        StormReport storms = StormReport.load(comparison.capacity(), knownRuns, pgbench, mixedRuns, knownCost);
        String stormText = storms.isEmpty() ? null : storms.text();
        comparison.write(out, stormText);
        if (!runs.isEmpty()) {
            System.out.print(comparison.table());
        }
        if (stormText != null) {
            java.nio.file.Files.writeString(out.resolve("fast-path.txt"), stormText);
            java.nio.file.Files.writeString(out.resolve("fast-path.json"), Json.MAPPER.writeValueAsString(storms.json()));
            System.out.print((runs.isEmpty() ? "" : "\n") + stormText);
        }
        System.out.println("report: " + out.resolve("index.html"));
        return 0;
    }
}
