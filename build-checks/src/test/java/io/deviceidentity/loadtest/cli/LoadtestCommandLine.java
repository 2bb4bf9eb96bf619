package io.deviceidentity.loadtest.cli;

import java.util.List;

import io.deviceidentity.loadtest.LoadTest;
import io.deviceidentity.loadtest.bench.BenchCommand;
import picocli.CommandLine;
import picocli.CommandLine.ParseResult;

/**
 * The load generator's command line exactly as {@code java -jar loadtest.jar ARGS} reads it: picocli's parse with the
 * real {@link LoadTest#commandLine()}, then the part of each command's parsing that picocli leaves to the command
 * ({@code run}: {@link RunCommand#settings}, "the command's whole parsing, without running anything"; {@code seed}:
 * the PostgreSQL URL the seeder refuses to start without; {@code metrics}: its selectors and option pairs;
 * {@code bench}: one of its subcommands, whose options are all typed). Lives in the CLI's package to reach those
 * package-private steps; it runs nothing.
 */
public final class LoadtestCommandLine {

    private LoadtestCommandLine() {
    }

    /** Throws (picocli's ParameterException, or IllegalArgumentException) when the program would refuse ARGS. */
    public static String check(List<String> args) {
        ParseResult result = LoadTest.commandLine().parseArgs(args.toArray(String[]::new));
        if (!result.hasSubcommand()) {
            throw new IllegalArgumentException("no subcommand in " + args);
        }
        ParseResult sub = result.subcommand();
        Object command = sub.commandSpec().userObject();
        ParseResult leaf = sub;
        if (command instanceof RunCommand run) {
            run.settings(run.metricsUrl());
        } else if (command instanceof SeedCommand seed) {
            if (seed.database.postgresUrl == null) {
                throw new IllegalArgumentException("seed needs --pg-url (DeviceSeeder refuses to start without it)");
            }
            seed.population.spec(0, 0, 0);
        } else if (command instanceof MetricsCommand metrics) {
            metrics.parsed();
        } else if (command instanceof BenchCommand) {
            if (!sub.hasSubcommand()) {
                throw new IllegalArgumentException("bench needs one of its subcommands: " + args);
            }
            leaf = sub.subcommand();
        } else if (!(command instanceof CompareCommand)) {
            throw new IllegalArgumentException("not a command the tool runs: " + sub.commandSpec().name());
        }
        if (sub.isUsageHelpRequested() || sub.isVersionHelpRequested() || leaf.isUsageHelpRequested()) {
            throw new IllegalArgumentException("asks for help instead of running: " + args);
        }
        return sub.commandSpec().name() + (leaf == sub ? "" : " " + leaf.commandSpec().name());
    }

    /** Whether picocli itself rejects ARGS (as opposed to the command's own checks). */
    public static boolean isParameterException(Throwable e) {
        return e instanceof CommandLine.ParameterException;
    }
}
