package io.deviceidentity.loadtest.fastpath;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * What one pgbench run printed (PostgreSQL 15's pgbench): query mode, clients, threads, transactions, failed
 * transactions, average latency and throughput ({@code tps = ... (without initial connection time)}).
 */
public record PgbenchResult(String label, String queryMode, int clients, int threads, long transactions,
        long failed, double latencyAverageMs, double tps) {

    private static final Pattern MODE = Pattern.compile("(?m)^query mode: (\\S+)");
    private static final Pattern CLIENTS = Pattern.compile("(?m)^number of clients: (\\d+)");
    private static final Pattern THREADS = Pattern.compile("(?m)^number of threads: (\\d+)");
    private static final Pattern TRANSACTIONS = Pattern.compile("(?m)^number of transactions actually processed: (\\d+)");
    private static final Pattern FAILED = Pattern.compile("(?m)^number of failed transactions: (\\d+)");
    private static final Pattern LATENCY = Pattern.compile("(?m)^latency average = ([0-9.]+) ms");
    private static final Pattern TPS = Pattern.compile("(?m)^tps = ([0-9.]+) \\(without initial connection time\\)");

    public static PgbenchResult parse(String label, String output) {
        Double tps = number(TPS, output);
        if (tps == null) {
            throw new IllegalArgumentException("pgbench output of " + label + " has no 'tps = ... (without initial "
                    + "connection time)' line: did it fail?");
        }
        Matcher mode = MODE.matcher(output);
        return new PgbenchResult(label, mode.find() ? mode.group(1) : "?", whole(CLIENTS, output),
                whole(THREADS, output), (long) orZero(number(TRANSACTIONS, output)),
                (long) orZero(number(FAILED, output)), orZero(number(LATENCY, output)), tps);
    }

    public static PgbenchResult read(String label, Path file) throws IOException {
        return parse(label, Files.readString(file));
    }

    private static Double number(Pattern pattern, String text) {
        Matcher m = pattern.matcher(text);
        return m.find() ? Double.parseDouble(m.group(1)) : null;
    }

    private static int whole(Pattern pattern, String text) {
        return (int) orZero(number(pattern, text));
    }

    private static double orZero(Double value) {
        return value == null ? 0 : value;
    }
}
