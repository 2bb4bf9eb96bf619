package io.deviceidentity.qos2probe;

import io.deviceidentity.qos2probe.cli.ProbeCommand;
import picocli.CommandLine;

/** {@code java -jar qos2-probe.jar --broker-a HOST:PORT --broker-b HOST:PORT ...}; see {@link ProbeCommand}. */
public final class Qos2Probe {

    private Qos2Probe() {
    }

    public static void main(String[] args) {
        System.exit(execute(args));
    }

    /** Runs the command line and returns its exit code (tests call this instead of main). */
    public static int execute(String... args) {
        return commandLine().execute(args);
    }

    /** The command line as {@link #main} parses it (the Job test parses the Job's args with it). */
    public static CommandLine commandLine() {
        return new CommandLine(new ProbeCommand());
    }
}
