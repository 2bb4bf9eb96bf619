package io.deviceidentity.loadtest;

import io.deviceidentity.loadtest.bench.BenchCommand;
import io.deviceidentity.loadtest.cli.CompareCommand;
import io.deviceidentity.loadtest.cli.MetricsCommand;
import io.deviceidentity.loadtest.cli.RunCommand;
import io.deviceidentity.loadtest.cli.SeedCommand;
import picocli.CommandLine;
import picocli.CommandLine.Command;

/** The command line: {@code java -jar loadtest.jar run|seed|compare|bench|metrics ...}. */
@Command(name = "loadtest", mixinStandardHelpOptions = true, version = "loadtest 0.1",
        description = "Calls auth-service the way EMQX's HTTP authenticator does, with devices that connect and retry, "
                + "and reports goodput, outcomes, latency and database connection peaks.",
        subcommands = {RunCommand.class, SeedCommand.class, CompareCommand.class, BenchCommand.class, MetricsCommand.class,
                CommandLine.HelpCommand.class})
public final class LoadTest {

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line and returns its exit code (tests call this instead of main). */
    public static int execute(String... args) {
        return commandLine().execute(args);
    }

    /** The command line as {@link #main} parses it. */
    public static CommandLine commandLine() {
        return new CommandLine(new LoadTest()).setCaseInsensitiveEnumValuesAllowed(true);
    }
}
