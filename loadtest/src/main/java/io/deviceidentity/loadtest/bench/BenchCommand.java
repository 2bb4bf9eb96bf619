package io.deviceidentity.loadtest.bench;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.Callable;

import com.fasterxml.jackson.databind.JsonNode;

import io.deviceidentity.metrics.MetricSelector;
import io.deviceidentity.loadtest.metrics.MetricsPage;
import io.deviceidentity.metrics.PrometheusText;
import io.deviceidentity.loadtest.report.Json;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine.Parameters;

/**
 * {@code bench}: the arithmetic of scripts/bench.sh and bench-pods.sh, one subcommand per figure they need; the
 * scripts start processes and cgroups and print what these compute ({@link BenchArithmetic}, {@link CpuSpan}).
 */
@Command(name = "bench", mixinStandardHelpOptions = true,
        description = "The figures of make bench: rates, devices, pod shapes, capacities, notes (scripts/bench.sh).",
        subcommands = {BenchCommand.PointCommand.class, BenchCommand.DevicesCommand.class,
                BenchCommand.MixedCommand.class, BenchCommand.KnownRatesCommand.class, BenchCommand.PodCommand.class,
                BenchCommand.QuotaCommand.class, BenchCommand.CapacityCommand.class, BenchCommand.SumCommand.class,
                BenchCommand.TlsRatioCommand.class, BenchCommand.CpuNoteCommand.class,
                BenchCommand.ThrottlingCommand.class, BenchCommand.MeanTimeCommand.class,
                BenchCommand.PodTableCommand.class, BenchCommand.ColdReplicaCommand.class,
                BenchCommand.WindowsCommand.class, BenchCommand.RefusalCostCommand.class, BenchCommand.JfrTopCommand.class})
public final class BenchCommand {

    static final MetricSelector BCRYPT_SUM = MetricSelector.parse("identity_bcrypt_duration_seconds_sum");
    static final MetricSelector BCRYPT_COUNT = MetricSelector.parse("identity_bcrypt_duration_seconds_count");
    static final MetricSelector ANSWER_TIME_SUM = MetricSelector.parse(
            "http_server_requests_seconds_sum{method=\"POST\",outcome=\"SUCCESS\",status=\"200\",uri=\"/mqtt\"}");
    static final MetricSelector ANSWER_TIME_COUNT = MetricSelector.parse(
            "http_server_requests_seconds_count{method=\"POST\",outcome=\"SUCCESS\",status=\"200\",uri=\"/mqtt\"}");

    /** A run's steady-state goodput as its summary.json has it (the number's own text), null without one. */
    static String goodput(Path summary) throws IOException {
        return number(Json.MAPPER.readTree(summary.toFile()).path("steady_state").path("goodput"));
    }

    static String number(JsonNode node) {
        return node.isNumber() ? node.toString() : null;
    }

    /** A page that cannot be read counts as an empty one: the service was gone, its figures are 0. */
    static String pageOrEmpty(String source) {
        try {
            return source == null ? "" : MetricsPage.read(source);
        } catch (IOException unreadable) {
            System.err.println("bench: " + unreadable.getMessage() + " (counted as an empty page)");
            return "";
        }
    }

    @Command(name = "point", description = "An overload point: prints 'rate peak devices'.")
    static final class PointCommand implements Callable<Integer> {
        @Option(names = "--capacity", required = true) double capacity;
        @Option(names = "--factor", required = true) double factor;
        @Option(names = "--step-factor") Double stepFactor;
        @Option(names = "--duration", required = true) String duration;
        @Option(names = "--devices", description = "BENCH_DEVICES: a fixed population (empty: computed).") String devices;

        @Override
        public Integer call() {
            System.out.println(BenchArithmetic.point(capacity, factor, stepFactor, duration, devices).line());
            return 0;
        }
    }

    @Command(name = "devices", description = "The devices RATE arrivals/s need for DURATION.")
    static final class DevicesCommand implements Callable<Integer> {
        @Option(names = "--rate", required = true) double rate;
        @Option(names = "--duration", required = true) String duration;
        @Option(names = "--devices") String devices;

        @Override
        public Integer call() {
            System.out.println(BenchArithmetic.devices(rate, duration, devices));
            return 0;
        }
    }

    @Command(name = "mixed", description = "The mixed storm: prints 'rate cold_rate known_share cold_devices known_needed'.")
    static final class MixedCommand implements Callable<Integer> {
        @Option(names = "--capacity", required = true) double capacity;
        @Option(names = "--factor", required = true) double factor;
        @Option(names = "--cold-share", required = true) double coldShare;
        @Option(names = "--duration", required = true) String duration;
        @Option(names = "--devices") String devices;

        @Override
        public Integer call() {
            System.out.println(BenchArithmetic.mixed(capacity, factor, coldShare, duration, devices).line());
            return 0;
        }
    }

    @Command(name = "known-rates", description = "The known storm's open steps (arrivals/s), from its closed loops.")
    static final class KnownRatesCommand implements Callable<Integer> {
        @Option(names = "--closed-run", paramLabel = "SUMMARY_JSON", required = true) List<Path> closedRuns;
        @Option(names = "--steps", required = true, split = "\\s+", description = "Factors of the closed loops' best.")
        List<Double> steps;

        @Override
        public Integer call() throws IOException {
            List<Double> goodputs = new ArrayList<>();
            for (Path run : closedRuns) {
                String goodput = goodput(run);
                goodputs.add(goodput == null ? 0 : Double.parseDouble(goodput));
            }
            System.out.println(String.join(" ", BenchArithmetic.knownRates(goodputs, steps).stream().map(String::valueOf)
                    .toList()));
            return 0;
        }
    }

    @Command(name = "pod", description = "A pod of CPU: prints 'bcrypt_threads taskset_cpus subcore' (subcore 1 or 0).")
    static final class PodCommand implements Callable<Integer> {
        @Option(names = "--cpu", required = true) double cpu;
        @Option(names = "--cpus", required = true, description = "BENCH_AUTH_CPUS.") String cpus;
        @Option(names = "--machine-cpus", required = true) int machineCpus;

        @Override
        public Integer call() {
            System.out.println(BenchArithmetic.threads(cpu) + " " + BenchArithmetic.pin(cpu, cpus, machineCpus) + " "
                    + (cpu < 1 ? 1 : 0));
            return 0;
        }
    }

    @Command(name = "quota", description = "The CFS quota (microseconds) of a pod of CPU per PERIOD.")
    static final class QuotaCommand implements Callable<Integer> {
        @Option(names = "--cpu", required = true) double cpu;
        @Option(names = "--period", required = true) long period;

        @Override
        public Integer call() {
            System.out.println(BenchArithmetic.quota(cpu, period));
            return 0;
        }
    }

    @Command(name = "capacity",
            description = "A capacity run's goodput (fails when it is not above 0); writes the bcrypt-bound capacity.")
    static final class CapacityCommand implements Callable<Integer> {
        @Option(names = "--summary", required = true) Path summary;
        @Option(names = "--cpu", required = true) double cpu;
        @Option(names = "--bcrypt-before", required = true, paramLabel = "FILE", description = "The page before the run.")
        Path before;
        @Option(names = "--metrics", required = true, paramLabel = "URL", description = "The page after it.") String metrics;
        @Option(names = "--bound-out", required = true) Path boundOut;

        @Override
        public Integer call() throws IOException {
            String before = Files.exists(this.before) ? Files.readString(this.before) : "";
            String after = pageOrEmpty(metrics);
            Files.writeString(boundOut, BenchArithmetic.bcryptBound(BenchArithmetic.threads(cpu),
                    PrometheusText.sum(before, BCRYPT_SUM), PrometheusText.sum(before, BCRYPT_COUNT),
                    PrometheusText.sum(after, BCRYPT_SUM), PrometheusText.sum(after, BCRYPT_COUNT)) + "\n");
            String goodput = Files.exists(summary) ? goodput(summary) : null;
            if (goodput == null || !(Double.parseDouble(goodput) > 0)) {
                System.err.println("bench: the capacity run got no allows (" + summary + ")");
                return 1;
            }
            System.out.println(goodput);
            return 0;
        }
    }

    @Command(name = "sum", description = "Capacities added up, two decimals.")
    static final class SumCommand implements Callable<Integer> {
        @Parameters(paramLabel = "VALUE", arity = "1..*") List<Double> values;

        @Override
        public Integer call() {
            System.out.println(BenchArithmetic.sum(values));
            return 0;
        }
    }

    @Command(name = "tls-ratio", description = "One line: a TLS run's steady goodput against its plain twin's.")
    static final class TlsRatioCommand implements Callable<Integer> {
        @Option(names = "--plain", required = true, paramLabel = "LABEL=SUMMARY_JSON") java.util.Map<String, Path> plain;
        @Option(names = "--tls", required = true, paramLabel = "LABEL=SUMMARY_JSON") java.util.Map<String, Path> tls;
        @Option(names = "--connections", required = true) int connections;

        @Override
        public Integer call() throws IOException {
            var p = plain.entrySet().iterator().next();
            var t = tls.entrySet().iterator().next();
            JsonNode tlsRun = Json.MAPPER.readTree(t.getValue().toFile());
            String plainGoodput = Files.exists(p.getValue()) ? goodput(p.getValue()) : null;
            System.out.println(BenchArithmetic.tlsLine(p.getKey(), t.getKey(), Files.exists(p.getValue())
                    ? (plainGoodput == null ? "" : plainGoodput) : null, number(tlsRun.path("steady_state").path("goodput")),
                    connections, number(tlsRun.path("whole_run").path("offered"))));
            return 0;
        }
    }

    @Command(name = "cpu-note", description = "Where the CPU went between two snapshots (bench.sh's cpu_snapshot).")
    static final class CpuNoteCommand implements Callable<Integer> {
        @Option(names = "--before", required = true, description = "Snapshot FILE (its times output: FILE.times).")
        Path before;
        @Option(names = "--after", required = true) Path after;
        @Option(names = "--ticks-per-second", required = true, description = "getconf CLK_TCK.") int ticksPerSecond;
        @Option(names = "--count", required = true) long count;
        @Option(names = "--what", required = true, description = "answers or transactions.") String what;
        @Option(names = "--tool", required = true) String tool;
        @Option(names = "--label", required = true) String label;
        @Option(names = "--auth-cpus", required = true) String authCpus;
        @Option(names = "--load-cpus", required = true) String loadCpus;

        @Override
        public Integer call() throws IOException {
            System.out.println(CpuSpan.note(snapshot(before), snapshot(after), ticksPerSecond, count, what, tool, label,
                    authCpus, loadCpus));
            return 0;
        }

        private static CpuSpan.Snapshot snapshot(Path file) throws IOException {
            Path times = file.resolveSibling(file.getFileName() + ".times");
            return CpuSpan.Snapshot.parse(Files.readString(file), Files.exists(times) ? Files.readString(times) : "");
        }
    }

    @Command(name = "throttling", description = "A cgroup's cpu.stat as 'periods throttled throttled_ms'.")
    static final class ThrottlingCommand implements Callable<Integer> {
        @Parameters(paramLabel = "CPU_STAT") Path cpuStat;

        @Override
        public Integer call() throws IOException {
            System.out.println(BenchArithmetic.throttling(Files.readString(cpuStat)));
            return 0;
        }
    }

    @Command(name = "mean-time", description = "The mean time inside the service per 200 answer since a recorded page.")
    static final class MeanTimeCommand implements Callable<Integer> {
        @Option(names = "--label", required = true) String label;
        @Option(names = "--before", required = true) Path before;
        @Option(names = "--metrics", required = true) String metrics;

        @Override
        public Integer call() throws IOException {
            String was = Files.exists(before) ? Files.readString(before) : "";
            String now = pageOrEmpty(metrics);
            String note = BenchArithmetic.meanTimeNote(label, PrometheusText.sum(was, ANSWER_TIME_SUM),
                    PrometheusText.sum(was, ANSWER_TIME_COUNT), PrometheusText.sum(now, ANSWER_TIME_SUM),
                    PrometheusText.sum(now, ANSWER_TIME_COUNT));
            if (note != null) {
                System.out.println(note);
            }
            return 0;
        }
    }

    @Command(name = "pod-table", description = "The pod-size table, one ROW per pod size and EMQX pool (bench-pods.sh).")
    static final class PodTableCommand implements Callable<Integer> {
        @Parameters(paramLabel = "ROW", arity = "1..*",
                description = "'cpu capacity bcrypt_bound connections summary.json p0 t0 ms0 p1 t1 ms1 us_per_refusal'.")
        List<String> rows;
        @Mixin WindowOptions windows;

        @Override
        public Integer call() {
            System.out.print(PodTables.podTable(rows, windows.spans()));
            return 0;
        }
    }

    /** The late windows of a storm: a fixed window, the last seconds, and the slices of the request rate. */
    static final class WindowOptions {
        @Option(names = "--window", defaultValue = "40-90", paramLabel = "FROM-TO",
                description = "The late window, seconds into the storm (default: ${DEFAULT-VALUE}).") String window;
        @Option(names = "--last", defaultValue = "30", description = "The last N seconds (default: ${DEFAULT-VALUE}).")
        int last;
        @Option(names = "--every", defaultValue = "10",
                description = "The request rate per this many seconds (default: ${DEFAULT-VALUE}).") int every;

        PodTables.Spans spans() {
            String[] bounds = window.split("-", 2);
            if (bounds.length != 2 || !bounds[0].matches("\\d+") || !bounds[1].matches("\\d+")
                    || Integer.parseInt(bounds[0]) >= Integer.parseInt(bounds[1]) || last <= 0 || every <= 0) {
                throw new IllegalArgumentException("--window FROM-TO (seconds, FROM < TO), --last and --every above 0: "
                        + window + ", " + last + ", " + every);
            }
            return new PodTables.Spans(Integer.parseInt(bounds[0]), Integer.parseInt(bounds[1]), last, every);
        }
    }

    @Command(name = "windows", description = "A storm's goodput / capacity in the late window, the last seconds and the"
            + " whole storm, and its request rate over time (from summary.json's per-second series).")
    static final class WindowsCommand implements Callable<Integer> {
        @Option(names = "--summary", required = true) Path summary;
        @Option(names = "--capacity", required = true) double capacity;
        @Option(names = "--out", description = "Also written to this file.") Path out;
        @Mixin WindowOptions windows;

        @Override
        public Integer call() throws IOException {
            PodTables.Spans spans = windows.spans();
            String report = Files.exists(summary)
                    ? LateWindows.of(summary).report(capacity, spans.from(), spans.to(), spans.last(), spans.every())
                    : "goodput / capacity: no " + summary + "\n";
            if (out != null) {
                Files.writeString(out, report);
            }
            System.out.print(report);
            return 0;
        }
    }

    @Command(name = "refusal-cost", description = "CPU per refused answer (microseconds) over a storm's late window,"
            + " from thread-cpu.py snapshots and the runs' per-second answers, priced against the capacity run.")
    static final class RefusalCostCommand implements Callable<Integer> {
        @Option(names = "--capacity-threads", arity = "2", required = true, paramLabel = "SNAPSHOT",
                description = "thread-cpu.py snapshots before and after the capacity run.") List<Path> capacityThreads;
        @Option(names = "--capacity-summary", required = true, paramLabel = "SUMMARY_JSON") Path capacitySummary;
        @Option(names = "--capacity-from", defaultValue = "0",
                description = "Where its snapshots begin, seconds into it (default: ${DEFAULT-VALUE}).") int capacityFrom;
        @Option(names = "--window-threads", arity = "2", required = true, paramLabel = "SNAPSHOT",
                description = "Snapshots at the late window's start and at the storm's end.") List<Path> windowThreads;
        @Option(names = "--window-summary", required = true, paramLabel = "SUMMARY_JSON") Path windowSummary;
        @Option(names = "--window-from", required = true, description = "The late window's start, seconds into the storm.")
        int windowFrom;
        @Option(names = "--out", description = "Also written to this file.") Path out;
        @Option(names = "--figure-out", description = "The figure alone (microseconds, or -) to this file.") Path figureOut;
        @Option(names = "--answers-out", description = "The window's answers (allows, refusals, late) to this file.")
        Path answersOut;

        @Override
        public Integer call() throws IOException {
            RefusalCost.Result result = RefusalCost.of(
                    RefusalCost.Span.read(capacityThreads.get(0), capacityThreads.get(1), capacitySummary, capacityFrom),
                    RefusalCost.Span.read(windowThreads.get(0), windowThreads.get(1), windowSummary, windowFrom));
            if (out != null) {
                Files.writeString(out, result.line() + "\n");
            }
            if (figureOut != null) {
                Files.writeString(figureOut, result.figure() + "\n");
            }
            if (answersOut != null) {
                Files.writeString(answersOut, result.window().answers() + "\n");
            }
            System.out.println(result.line());
            return 0;
        }
    }

    @Command(name = "jfr-top", description = "The top frames and thread groups of a recording's execution samples"
            + " (the JSON of: jfr print --events jdk.ExecutionSample --json).")
    static final class JfrTopCommand implements Callable<Integer> {
        @Option(names = "--samples", required = true, paramLabel = "JSON") Path samples;
        @Option(names = "--from", paramLabel = "INSTANT", description = "Leave out samples before it (ISO-8601, UTC).")
        String from;
        @Option(names = "--top", defaultValue = "15", description = "Frames shown (default: ${DEFAULT-VALUE}).") int top;
        @Option(names = "--out", description = "Also written to this file.") Path out;

        @Override
        public Integer call() throws IOException {
            JfrTop.Counts counts;
            try (var in = Files.newInputStream(samples)) {
                counts = JfrTop.count(in, from == null || from.isBlank() ? null : java.time.Instant.parse(from));
            }
            String report = JfrTop.report(counts, top);
            if (out != null) {
                Files.writeString(out, report);
            }
            System.out.print(report);
            return 0;
        }
    }

    @Command(name = "cold-replica", description = "A cold replica's first seconds after readiness, per second.")
    static final class ColdReplicaCommand implements Callable<Integer> {
        @Option(names = "--replicas-csv", required = true) Path replicasCsv;
        @Option(names = "--slot", required = true) String slot;
        @Option(names = "--shown", required = true) int shown;
        @Option(names = "--capacity", required = true, description = "The warm replicas' capacities summed.")
        double capacity;
        @Option(names = "--replicas", required = true, description = "The warm replicas.") int replicas;

        @Override
        public Integer call() throws IOException {
            System.out.print(PodTables.coldReplica(replicasCsv, slot, shown, capacity, replicas));
            return 0;
        }
    }
}
