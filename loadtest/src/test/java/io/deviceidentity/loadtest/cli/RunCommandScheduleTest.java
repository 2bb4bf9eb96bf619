package io.deviceidentity.loadtest.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.net.URI;
import java.time.Duration;

import org.junit.jupiter.api.Test;

import io.deviceidentity.loadtest.LoadTest;
import io.deviceidentity.loadtest.devices.RateSchedule;
import io.deviceidentity.loadtest.run.RunSettings;
import picocli.CommandLine;

/** The run command's parsing of the offered-load schedule and the new reporting options (nothing is run). */
class RunCommandScheduleTest {

    /** Parses {@code run ARGS} with the real command line of the jar. */
    private static RunCommand parse(String... args) {
        String[] line = new String[args.length + 1];
        line[0] = "run";
        System.arraycopy(args, 0, line, 1, args.length);
        CommandLine.ParseResult parsed = LoadTest.commandLine().parseArgs(line);
        return (RunCommand) parsed.subcommand().commandSpec().userObject();
    }

    @Test
    void aStepInTheArrivalRate() {
        RunCommand command = parse("--rate", "22", "--step-at", "30s", "--step-rate", "176");
        RateSchedule schedule = command.settings(null).rate();
        assertEquals(22, schedule.rateAt(Duration.ofSeconds(29)));
        assertEquals(176, schedule.rateAt(Duration.ofSeconds(30)));
        assertEquals(176, schedule.finalRate());
    }

    @Test
    void withoutAStepTheRateIsConstant() {
        RateSchedule schedule = parse("--rate", "22").settings(null).rate();
        assertFalse(schedule.hasStep());
        assertEquals(22, schedule.rateAt(Duration.ofSeconds(100)));
    }

    @Test
    void aStepNeedsBothOptions() {
        RunCommand command = parse("--rate", "22", "--step-at", "30s");
        assertThrows(CommandLine.ParameterException.class, () -> command.settings(null));
    }

    @Test
    void serviceMetricsDefaultToTheAuthnHostAndCanBeTurnedOff() {
        assertEquals(URI.create("http://127.0.0.1:8091/q/metrics"),
                parse("--url", "http://127.0.0.1:8091/mqtt/authn").metricsUrl());
        assertNull(parse("--service-metrics", "none").metricsUrl());
    }

    @Test
    void steadyStateStartAndCapacityReachTheSettings() {
        RunSettings settings = parse("--steady-state-from", "30s", "--capacity", "14.5", "--duration", "60s")
                .settings(null);
        assertEquals(Duration.ofSeconds(30), settings.steadyStateFrom());
        assertEquals(14.5, settings.capacity());
    }
}
