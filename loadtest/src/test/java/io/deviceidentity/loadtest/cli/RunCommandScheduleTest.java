package io.deviceidentity.loadtest.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.URI;
import java.time.Duration;
import java.util.List;
import java.util.Map;

import org.junit.jupiter.api.Test;

import io.deviceidentity.loadtest.LoadTest;
import io.deviceidentity.loadtest.devices.PopulationPart;
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
    void serviceMetricsDefaultToTheManagementPortBesideTheAuthnPortAndCanBeTurnedOff() {
        assertEquals(URI.create("http://127.0.0.1:9091/q/metrics"),
                parse("--url", "http://127.0.0.1:8091/mqtt/authn").metricsUrl());
        assertEquals(URI.create("http://127.0.0.1:9091/q/metrics"),
                parse("--url", "https://127.0.0.1:8091/mqtt/authn").metricsUrl(), "management stays plain HTTP");
        assertNull(parse("--service-metrics", "none").metricsUrl());
    }

    @Test
    void steadyStateStartAndCapacityReachTheSettings() {
        RunSettings settings = parse("--steady-state-from", "30s", "--capacity", "14.5", "--duration", "60s")
                .settings(null);
        assertEquals(Duration.ofSeconds(30), settings.steadyStateFrom());
        assertEquals(14.5, settings.capacity());
    }

    @Test
    void partsDescribeThePopulationAndReachTheSummarySettings() {
        RunSettings settings = parse("--part", "known:bench-known-:20000:0.9", "--part", "cold:bench-cold-:2000:0.1",
                "--shared-password", "pw", "--rate", "100").settings(null);
        assertEquals(22000, settings.population().devices());
        assertEquals(List.of(new PopulationPart("known", "bench-known-", 20000, 0.9),
                new PopulationPart("cold", "bench-cold-", 2000, 0.1)), settings.population().parts());
        @SuppressWarnings("unchecked")
        Map<String, Object> parts = (Map<String, Object>) settings.describe().get("parts");
        assertEquals(Map.of("id_prefix", "bench-cold-", "devices", 2000, "share", 0.1), parts.get("cold"));
    }

    @Test
    void partsReplaceDevicesAndPrefixAndTheirSharesAddUp() {
        assertThrows(CommandLine.ParameterException.class,
                () -> parse("--devices", "10", "--part", "a:a-:10:1").settings(null));
        assertThrows(IllegalArgumentException.class,
                () -> parse("--part", "a:a-:10:0.5", "--part", "b:b-:10:0.4").settings(null));
        assertThrows(CommandLine.ParameterException.class, () -> parse("--part", "a:a-:10").settings(null));
        assertNull(parse("--devices", "10").settings(null).describe().get("parts"), "one part: no parts in settings");
    }

    @Test
    void theEachOncePassIsAClosedLoopAndReconnectingIsOpenModel() {
        RunSettings pass = parse("--closed-loop", "4", "--each-device-once").settings(null);
        assertTrue(pass.eachDeviceOnce());
        assertEquals(true, pass.describe().get("each_device_once"));
        assertThrows(IllegalArgumentException.class, () -> parse("--each-device-once").settings(null));
        RunSettings storm = parse("--rate", "1000", "--disconnect-after-allow").settings(null);
        assertTrue(storm.disconnectAfterAllow());
        assertEquals(true, storm.describe().get("disconnect_after_allow"));
        assertThrows(IllegalArgumentException.class,
                () -> parse("--closed-loop", "4", "--disconnect-after-allow").settings(null));
    }

    @Test
    void severalUrlsAreReplicasBehindOneServiceAndReplaceTheDefault() {
        RunCommand command = parse("--url", "http://127.0.0.1:8166/mqtt/authn", "--url", "http://127.0.0.1:8167/mqtt/authn",
                "--join", "http://127.0.0.1:8168/mqtt/authn", "--on-join", "reopen", "--readiness-period", "1s");
        RunSettings settings = command.settings(command.metricsUrl());
        assertEquals(List.of(URI.create("http://127.0.0.1:8166/mqtt/authn"), URI.create("http://127.0.0.1:8167/mqtt/authn")),
                settings.urls());
        assertEquals(List.of(URI.create("http://127.0.0.1:8168/mqtt/authn")), settings.joining());
        assertEquals(io.deviceidentity.loadtest.emqx.ServiceEndpoints.OnJoin.REOPEN, settings.onJoin());
        assertTrue(settings.behindService());
        assertNull(command.metricsUrl(), "auto scrapes nothing behind several replicas: one replica's counters would mislead");
        assertEquals(Duration.ofSeconds(1), settings.readinessPeriod());
        // Readiness is probed on the services' management interface, the main port + 1000, unless told otherwise.
        assertEquals(1000, settings.readinessPortOffset());
        assertEquals(1000, settings.describe().get("readiness_port_offset"));
    }

    @Test
    void aReadinessPortOffsetThatLeavesThePortRangeIsRefused() {
        assertEquals(-81, parse("--url", "http://127.0.0.1:8166/mqtt/authn", "--join", "http://127.0.0.1:8168/mqtt/authn",
                "--readiness-port-offset", "-81").settings(null).readinessPortOffset());
        assertThrows(IllegalArgumentException.class, () -> parse("--url", "http://127.0.0.1:8166/mqtt/authn",
                "--join", "http://127.0.0.1:65000/mqtt/authn").settings(null));
    }

    @Test
    void oneUrlIsTheDefaultAndKeepsTheServicesMetrics() {
        RunCommand command = parse();
        RunSettings settings = command.settings(command.metricsUrl());
        assertEquals(List.of(URI.create("http://127.0.0.1:8081/mqtt/authn")), settings.urls());
        assertFalse(settings.behindService());
        // The services serve metrics on their management interface, the main port + 1000.
        assertEquals(URI.create("http://127.0.0.1:9081/q/metrics"), command.metricsUrl());
        assertEquals(io.deviceidentity.loadtest.emqx.ServiceEndpoints.OnJoin.KEEP, settings.onJoin());
    }

    @Test
    void aJoiningReplicaMustShareThePathAndOnJoinIsKeepOrReopen() {
        assertThrows(IllegalArgumentException.class, () -> parse("--url", "http://127.0.0.1:8166/mqtt/authn",
                "--join", "http://127.0.0.1:8168/other").settings(null));
        assertThrows(CommandLine.ParameterException.class, () -> parse("--on-join", "sometimes").settings(null));
    }

    @Test
    void anHttpsUrlIsCheckedAgainstTheGivenCaAndACaFileNeedsHttps() {
        RunSettings settings = parse("--url", "https://127.0.0.1:8091/mqtt/authn", "--ca-file", "/stack/tls/ca.crt")
                .settings(null);
        assertEquals(java.util.Optional.of(java.nio.file.Path.of("/stack/tls/ca.crt")), settings.tls().caFile());
        assertEquals("/stack/tls/ca.crt", settings.describe().get("ca_file"));
        assertTrue(parse("--url", "https://127.0.0.1:8091/mqtt/authn").settings(null).tls().caFile().isEmpty(),
                "without --ca-file the JVM's trust store decides");
        assertThrows(IllegalArgumentException.class, () -> parse("--url", "http://127.0.0.1:8091/mqtt/authn",
                "--ca-file", "/stack/tls/ca.crt").settings(null), "a CA for a plain URL is a mistake, not a no-op");
        assertThrows(IllegalArgumentException.class, () -> parse("--url", "https://127.0.0.1:8166/mqtt/authn",
                "--url", "http://127.0.0.1:8167/mqtt/authn").settings(null), "replicas of one Service, two schemes");
        assertThrows(IllegalArgumentException.class, () -> parse("--url", "ftp://127.0.0.1:8166/mqtt/authn")
                .settings(null));
    }

    @Test
    void aClientCertificateAndItsKeyReachTheSettingsOfAnHttpsUrl() {
        RunSettings settings = parse("--url", "https://127.0.0.1:8091/mqtt/authn", "--ca-file", "/stack/tls/ca.crt",
                "--client-cert", "/client-tls/tls.crt", "--client-key", "/client-tls/tls.key").settings(null);
        assertEquals(java.util.Optional.of(new io.deviceidentity.loadtest.emqx.ClientCertificate(
                java.nio.file.Path.of("/client-tls/tls.crt"), java.nio.file.Path.of("/client-tls/tls.key"))),
                settings.tls().certificate());
        assertEquals("/client-tls/tls.crt", settings.describe().get("client_cert"));
        assertFalse(settings.describe().containsValue("/client-tls/tls.key"), "the summary names no key");
        assertTrue(parse("--url", "https://127.0.0.1:8091/mqtt/authn").settings(null).tls().certificate().isEmpty(),
                "no certificate unless asked for");
    }

    @Test
    void aClientCertificateNeedsItsKeyAndAnHttpsUrl() {
        assertThrows(CommandLine.ParameterException.class, () -> parse("--url", "https://127.0.0.1:8091/mqtt/authn",
                "--client-cert", "/client-tls/tls.crt").settings(null));
        assertThrows(CommandLine.ParameterException.class, () -> parse("--url", "https://127.0.0.1:8091/mqtt/authn",
                "--client-key", "/client-tls/tls.key").settings(null));
        assertThrows(IllegalArgumentException.class, () -> parse("--url", "http://127.0.0.1:8091/mqtt/authn",
                "--client-cert", "/client-tls/tls.crt", "--client-key", "/client-tls/tls.key").settings(null),
                "a certificate for a plain URL is a mistake, not a no-op");
    }
}
