package io.deviceidentity.loadtest.cli;

import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.Map;
import java.util.concurrent.Callable;

import io.deviceidentity.loadtest.report.Comparison;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;

/** {@code compare}: the side-by-side table of several runs against a measured capacity. */
@Command(name = "compare", mixinStandardHelpOptions = true,
        description = "Print runs side by side against the capacity run and write comparison.txt/json and index.html.")
public final class CompareCommand implements Callable<Integer> {

    @Option(names = "--capacity", required = true, paramLabel = "SUMMARY_JSON",
            description = "summary.json of the closed-loop capacity run.")
    Path capacity;

    @Option(names = "--run", required = true, paramLabel = "LABEL=SUMMARY_JSON",
            description = "A run to show as a column, in order (repeatable).")
    Map<String, Path> runs = new LinkedHashMap<>();

    @Option(names = "--out", defaultValue = "target/loadtest", description = "Where to write (default: ${DEFAULT-VALUE}).")
    Path out;

    @Override
    public Integer call() throws Exception {
        Comparison comparison = Comparison.load(capacity, runs);
        comparison.write(out);
        System.out.print(comparison.table());
        System.out.println("report: " + out.resolve("index.html"));
        return 0;
    }
}
