package io.deviceidentity.loadtest.bench;

import java.util.List;

/**
 * The arithmetic of {@code make bench} (scripts/bench.sh starts the processes; what it offers them and what it makes
 * of their figures is computed here): arrival rates from the measured capacity, the devices a point needs, the fast
 * path's open steps, a pod's bcrypt threads, quota and CPUs, and the bcrypt-bound capacity. Numbers are written as
 * the shell arithmetic wrote them ({@link Numbers}), since the bench's directory names, tables and docs carry them.
 */
public final class BenchArithmetic {

    /** A point's population never goes below this: small points keep the per-device limiter far away. */
    static final long MIN_DEVICES = 2000;
    /** Arrivals x duration, plus a quarter for the Poisson spread. */
    static final double DEVICE_SPARE = 1.25;
    /** The lowest arrival rate a point offers (a capacity so low is a broken run, but the point still runs). */
    static final double MIN_RATE = 0.5;

    private BenchArithmetic() {
    }

    /**
     * Seconds of a duration as the bench reads BENCH_POINT_DURATION: {@code 72s} and {@code 72} are 72,
     * {@code 1.5m} is 90, {@code 500ms} counts whole seconds only (0).
     */
    public static double durationSeconds(String duration) {
        String d = duration.strip();
        if (d.endsWith("ms")) {
            return Math.floor(Numbers.awkNumber(d) / 1000);
        }
        if (d.endsWith("m")) {
            return Numbers.awkNumber(d) * 60;
        }
        return Numbers.awkNumber(d);
    }

    /**
     * Devices a point needs: every arrival takes an idle device (failed ones wait to retry, allowed ones stay
     * connected), so arrivals/s x duration, a quarter more, at least {@link #MIN_DEVICES}; FIXED (BENCH_DEVICES)
     * when given.
     */
    public static long devices(double rate, String duration, String fixed) {
        if (fixed != null && !fixed.isBlank()) {
            return Long.parseLong(fixed.strip());
        }
        long n = (long) (rate * durationSeconds(duration) * DEVICE_SPARE) + 1;
        return Math.max(n, MIN_DEVICES);
    }

    /** A point's arrival rate: FACTOR x the capacity, at least {@link #MIN_RATE}, with one decimal. */
    public static String rate(double capacity, double factor) {
        return Numbers.fixed(Math.max(capacity * factor, MIN_RATE), 1);
    }

    /** One overload point: its rate, the peak (the step's rate when it steps), and the devices the peak needs. */
    public record Point(String rate, String peak, long devices) {
        public String line() {
            return rate + " " + peak + " " + devices;
        }
    }

    public static Point point(double capacity, double factor, Double stepFactor, String duration, String fixedDevices) {
        String rate = rate(capacity, factor);
        String peak = stepFactor == null ? rate : rate(capacity, stepFactor);
        return new Point(rate, peak, devices(Double.parseDouble(peak), duration, fixedDevices));
    }

    /**
     * The mixed storm: FACTOR x the bcrypt capacity, COLD_SHARE of it cold devices (seeded for it), the rest known
     * devices; knownNeeded is what the known arrivals would need, to warn when BENCH_KNOWN_DEVICES is short.
     */
    public record Mixed(String rate, String coldRate, String knownShare, long coldDevices, long knownNeeded) {
        public String line() {
            return rate + " " + coldRate + " " + knownShare + " " + coldDevices + " " + knownNeeded;
        }
    }

    public static Mixed mixed(double capacity, double factor, double coldShare, String duration, String fixedDevices) {
        String rate = Numbers.fixed(capacity * factor, 1);
        String coldRate = Numbers.fixed(Double.parseDouble(rate) * coldShare, 2);
        String knownShare = Numbers.awk(1 - coldShare);
        long coldDevices = devices(Double.parseDouble(coldRate), duration, fixedDevices);
        double knownRate = Double.parseDouble(Numbers.awk(Double.parseDouble(rate) * Double.parseDouble(knownShare)));
        return new Mixed(rate, coldRate, knownShare, coldDevices, devices(knownRate, duration, null));
    }

    /**
     * The known storm's open steps: each STEP x the best closed loop's goodput, rounded to 10/s, at least 10/s.
     */
    public static List<Long> knownRates(List<Double> closedGoodputs, List<Double> steps) {
        double best = closedGoodputs.stream().mapToDouble(Double::doubleValue).max().orElse(0);
        return steps.stream().map(f -> Math.max((long) (best * f / 10 + 0.5) * 10, 10L)).toList();
    }

    /** bcrypt threads of a pod of CPU: the JVM's CPU count under its quota, ceil(CPU). */
    public static int threads(double cpu) {
        return (int) Math.ceil(cpu);
    }

    /** The CFS quota of a pod of CPU for a period (microseconds). */
    public static long quota(double cpu, long periodMicros) {
        return (long) (cpu * periodMicros);
    }

    /** Taskset CPUs for a pod of CPU: OWN (BENCH_AUTH_CPUS) while the pod fits there, else every CPU of the machine. */
    public static String pin(double cpu, String own, int machineCpus) {
        int count = 0;
        for (String range : own.split(",")) {
            String[] ends = range.split("-");
            count += ends.length < 2 ? 1 : Integer.parseInt(ends[1].strip()) - Integer.parseInt(ends[0].strip()) + 1;
        }
        return cpu > count ? "0-" + (machineCpus - 1) : own;
    }

    /**
     * bcrypt's own rate over a run: threads / mean wall time of one check (throttling included), from the service's
     * identity_bcrypt_duration_seconds sum and count before and after; "-" when no check was timed.
     */
    public static String bcryptBound(int threads, double sumBefore, double countBefore, double sumAfter,
            double countAfter) {
        double seconds = Double.parseDouble(Numbers.awk(
                Double.parseDouble(Numbers.fixed(sumAfter, 6)) - Double.parseDouble(Numbers.fixed(sumBefore, 6))));
        long checks = (long) countAfter - (long) countBefore;
        return seconds > 0 ? Numbers.fixed(threads * checks / seconds, 2) : "-";
    }

    /** Capacities added up (the incident's replicas), with two decimals at each step as the table shows them. */
    public static String sum(List<Double> values) {
        double total = 0;
        for (double value : values) {
            total = Double.parseDouble(Numbers.fixed(total + value, 2));
        }
        return Numbers.fixed(total, 2);
    }

    /**
     * The mean time inside the service per 200 answer over a run (http_server_requests_seconds' sum and count before
     * and after it), a note line; null when there was no such answer.
     */
    public static String meanTimeNote(String label, double sumBefore, double countBefore, double sumAfter,
            double countAfter) {
        double seconds = Double.parseDouble(Numbers.awk(
                Double.parseDouble(Numbers.fixed(sumAfter, 6)) - Double.parseDouble(Numbers.fixed(sumBefore, 6))));
        double answers = Double.parseDouble(Numbers.fixed(countAfter, 0)) - Double.parseDouble(Numbers.fixed(countBefore, 0));
        if (answers <= 0) {
            return null;
        }
        return label + ": mean time inside auth-service per 200 answer (http_server_requests_seconds): "
                + Numbers.fixed(seconds * 1000 / answers, 2) + " ms";
    }

    /** A TLS run against its plain twin, one line; PLAIN_GOODPUT null when the plain twin did not run. */
    public static String tlsLine(String plain, String tls, String plainGoodput, String tlsGoodput, int connections,
            String tlsOffered) {
        if (plainGoodput == null) {
            return tls + ": steady goodput " + tlsGoodput + " allows/s; " + plain
                    + " (plain HTTP) was not run, no ratio (BENCH_ONLY)";
        }
        double gt = Numbers.awkNumber(tlsGoodput);
        double gp = Numbers.awkNumber(plainGoodput);
        return tls + ": steady goodput " + Numbers.fixed(gt, 1) + " allows/s over HTTPS against " + Numbers.fixed(gp, 1)
                + " over plain HTTP (" + plain + "): TLS/plain " + Numbers.fixed(gp > 0 ? gt / gp : 0, 2) + "; "
                + connections + " handshakes (one per kept-alive connection)"
                + (tlsOffered != null ? " for " + Numbers.integer(Numbers.awkNumber(tlsOffered)) + " requests" : "");
    }

    /** A cgroup's cpu.stat as "periods throttled throttled_ms" (v1 reports nanoseconds, v2 microseconds). */
    public static String throttling(String cpuStat) {
        double periods = 0;
        double throttled = 0;
        double millis = 0;
        for (String line : cpuStat.split("\n")) {
            String[] f = line.strip().split("\\s+");
            if (f.length < 2) {
                continue;
            }
            double v = Numbers.awkNumber(f[1]);
            switch (f[0]) {
                case "nr_periods" -> periods = v;
                case "nr_throttled" -> throttled = v;
                case "throttled_time" -> millis = v / 1e6;
                case "throttled_usec" -> millis = v / 1e3;
                default -> { }
            }
        }
        return Numbers.integer(periods) + " " + Numbers.integer(throttled) + " " + Numbers.fixed(millis, 0);
    }
}
