package io.deviceidentity.loadtest.cli;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.Callable;

import io.deviceidentity.loadtest.bench.Numbers;
import io.deviceidentity.loadtest.devices.Durations;
import io.deviceidentity.loadtest.metrics.MetricsPage;
import io.deviceidentity.metrics.MetricSelector;
import io.deviceidentity.metrics.PrometheusText;
import io.deviceidentity.metrics.PrometheusText.Sample;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code metrics}: values from a service's Prometheus page for the scripts, so that they read metrics through the
 * same parser as the load generator and a renamed metric is changed in one place.
 */
@Command(name = "metrics", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Print the values of SELECTORs (name, or name{key=\"value\",key=~\"regex\",...}: the series "
                + "carrying those labels, "
                + "summed) read from SOURCE (a /q/metrics URL or a recorded page), space-separated on one line.")
public final class MetricsCommand implements Callable<Integer> {

    @Parameters(index = "0", paramLabel = "SOURCE", description = "http(s) URL of a metrics page, or a file holding one.")
    String source;

    @Parameters(index = "1..*", paramLabel = "SELECTOR", description = "Series to read.")
    List<String> selectors = new ArrayList<>();

    @Option(names = "--since", paramLabel = "FILE",
            description = "A page recorded earlier (--save): print each value minus its value there.")
    Path since;

    @Option(names = "--save", paramLabel = "FILE", description = "Also write the page read to FILE (for a later --since).")
    Path save;

    @Option(names = "--each", description = "Print every matching series instead, one 'series value' per line.")
    boolean each;

    @Option(names = "--by", paramLabel = "LABEL",
            description = "Print the matching series summed per value of LABEL instead, one 'value sum' per line, "
                    + "sorted by value (series without LABEL left out).")
    String by;

    @Option(names = "--non-zero", description = "With --each or --by: only the lines whose sum is not 0.")
    boolean nonZero;

    @Option(names = "--until-zero", paramLabel = "DURATION",
            description = "Read again every 100 ms until every value is 0 or DURATION has passed (e.g. a write queue "
                    + "draining), then print.")
    String untilZero;

    @Option(names = "--unreadable-empty",
            description = "A page that cannot be read counts as an empty one (every value 0), with a note on stderr.")
    boolean unreadableEmpty;

    /** The command's own parsing, without reading anything (the scripts' argument lists are checked with it). */
    List<MetricSelector> parsed() {
        if (nonZero && !each && by == null) {
            throw new IllegalArgumentException("--non-zero goes with --each or --by");
        }
        if (each && by != null) {
            throw new IllegalArgumentException("--each and --by exclude each other");
        }
        if (untilZero != null) {
            Durations.parse(untilZero);
        }
        if (selectors.isEmpty() && save == null) {
            throw new IllegalArgumentException("nothing to do: give a SELECTOR or --save");
        }
        return selectors.stream().map(MetricSelector::parse).toList();
    }

    @Override
    public Integer call() throws Exception {
        List<MetricSelector> wanted = parsed();
        String before = since == null ? null : Files.readString(since);
        String page = page();
        if (untilZero != null) {
            long end = System.nanoTime() + Durations.parse(untilZero).toNanos();
            while (anyNonZero(page, wanted) && System.nanoTime() < end) {
                Thread.sleep(100);
                page = page();
            }
        }
        if (save != null) {
            Files.writeString(save, page);
        }
        if (each) {
            for (Sample sample : PrometheusText.samples(page)) {
                if (wanted.stream().anyMatch(s -> s.matches(sample)) && (!nonZero || sample.value() != 0)) {
                    System.out.println(sample.series() + " " + Numbers.plain(sample.value()));
                }
            }
        } else if (by != null) {
            Map<String, Double> sums = new TreeMap<>();
            for (Sample sample : PrometheusText.samples(page)) {
                if (sample.labels().containsKey(by) && wanted.stream().anyMatch(s -> s.matches(sample))) {
                    sums.merge(sample.labels().get(by), sample.value(), Double::sum);
                }
            }
            sums.forEach((value, sum) -> {
                if (!nonZero || sum != 0) {
                    System.out.println(value + " " + Numbers.plain(sum));
                }
            });
        } else if (!wanted.isEmpty()) {
            List<String> values = new ArrayList<>();
            for (MetricSelector selector : wanted) {
                double value = PrometheusText.sum(page, selector) - (before == null ? 0 : PrometheusText.sum(before, selector));
                values.add(Numbers.plain(value));
            }
            System.out.println(String.join(" ", values));
        }
        return 0;
    }

    private static boolean anyNonZero(String page, List<MetricSelector> wanted) {
        return wanted.stream().anyMatch(s -> PrometheusText.sum(page, s) != 0);
    }

    private String page() throws IOException {
        try {
            return MetricsPage.read(source);
        } catch (IOException unreadable) {
            if (!unreadableEmpty) {
                throw unreadable;
            }
            System.err.println("metrics: " + unreadable.getMessage() + " (counted as an empty page)");
            return "";
        }
    }
}
