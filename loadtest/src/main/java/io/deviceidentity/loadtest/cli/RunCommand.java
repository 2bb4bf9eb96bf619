package io.deviceidentity.loadtest.cli;

import java.net.URI;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Optional;
import java.util.concurrent.Callable;

import io.deviceidentity.loadtest.devices.Durations;
import io.deviceidentity.loadtest.devices.PopulationPart;
import io.deviceidentity.loadtest.devices.RateSchedule;
import io.deviceidentity.loadtest.devices.RetryPolicy;
import io.deviceidentity.loadtest.emqx.ClientCertificate;
import io.deviceidentity.loadtest.emqx.ClientTls;
import io.deviceidentity.loadtest.report.ProgressLine;
import io.deviceidentity.loadtest.report.RunSummary;
import io.deviceidentity.loadtest.report.WindowSummary;
import io.deviceidentity.loadtest.run.LoadRun;
import io.deviceidentity.loadtest.run.RunSettings;
import io.vertx.core.Vertx;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.Spec;

/** {@code run}: one bounded load run against auth-service; writes summary.json and report.html. */
@Command(name = "run", mixinStandardHelpOptions = true, sortOptions = false,
        description = "Drive auth-service like EMQX with connecting devices for a bounded time; print a line every "
                + "second and write <out>/summary.json and <out>/report.html.")
public final class RunCommand implements Callable<Integer> {

    @Option(names = "--url", defaultValue = "http://127.0.0.1:8081/mqtt/authn",
            description = "auth-service's authn endpoint; loopback only (default: ${DEFAULT-VALUE}). Repeatable: "
                    + "replicas behind one Kubernetes Service; each EMQX connection goes to one of them, picked at "
                    + "random when it is opened, and stays there (ehttpc keeps its connections).")
    List<URI> urls = new ArrayList<>();

    @Option(names = "--ca-file", paramLabel = "PEM",
            description = "The CA (PEM) an https:// --url's certificate must chain to, as EMQX's ssl.cacertfile; the "
                    + "certificate must also name the URL's host. Default: the JVM's trust store.")
    Path caFile;

    @Option(names = "--client-cert", paramLabel = "PEM",
            description = "The certificate (PEM) presented to an https:// --url that requires one (auth-service with "
                    + "client auth required: the chart's emqx.clientCertificate), as EMQX's ssl.certfile; with "
                    + "--client-key. Default: none.")
    Path clientCert;

    @Option(names = "--client-key", paramLabel = "PEM",
            description = "The private key (PEM: PKCS #8, or EC/RSA as cert-manager writes it) of --client-cert, as "
                    + "EMQX's ssl.keyfile.")
    Path clientKey;

    @Option(names = "--join", paramLabel = "URL",
            description = "A replica that becomes an endpoint of the Service once its /q/health/ready answers 200 "
                    + "(started cold during the run, as the HPA adds one); repeatable. Only connections opened after "
                    + "that can reach it (--on-join).")
    List<URI> joining = new ArrayList<>();

    @Option(names = "--on-join", defaultValue = "keep", paramLabel = "keep|reopen",
            description = "What EMQX's open connections do when a --join replica becomes ready: keep (ehttpc's own "
                    + "behaviour: they stay where they are) or reopen (each closes once its requests are answered and "
                    + "reconnects through the Service) (default: ${DEFAULT-VALUE}).")
    String onJoin;

    @Option(names = "--readiness-period", defaultValue = "5s", converter = DurationConverter.class,
            description = "How often a --join replica's readiness is checked (the chart's readinessProbe "
                    + "periodSeconds) (default: ${DEFAULT-VALUE}).")
    java.time.Duration readinessPeriod;

    @Option(names = "--readiness-port-offset", defaultValue = "1000", paramLabel = "N",
            description = "Where a --join replica's readiness is probed: /q/health/ready over plain HTTP on its host, at "
                    + "its port + N. The services answer health on their management interface, by default the main port "
                    + "+ 1000, as the local stacks run them (default: ${DEFAULT-VALUE}).")
    int readinessPortOffset;

    @Option(names = "--pool-size", defaultValue = "8",
            description = "EMQX pool_size: connections, one per worker (default: ${DEFAULT-VALUE}).")
    int poolSize;

    @Option(names = "--pipelining", defaultValue = "100",
            description = "EMQX enable_pipelining: requests in flight per connection; more wait in the worker's "
                    + "unbounded queue. EMQX's default is ${DEFAULT-VALUE}; our chart sets 1.")
    int pipelining;

    @Option(names = "--request-timeout", defaultValue = "5s", converter = DurationConverter.class,
            description = "EMQX request_timeout, counted from the call entering EMQX's queue: a later answer is "
                    + "dropped unread (late) and the caller gets a timeout 0.5 s after it (default: ${DEFAULT-VALUE}; "
                    + "the incident and the chart: 10s).")
    java.time.Duration requestTimeout;

    @Option(names = "--rate", defaultValue = "20",
            description = "Open model: fresh device connects per second, Poisson arrivals (default: ${DEFAULT-VALUE}). "
                    + "Retries come on top.")
    double rate;

    @Option(names = "--step-at", converter = DurationConverter.class, paramLabel = "TIME",
            description = "Open model: at TIME into the run the arrival rate steps to --step-rate "
                    + "(e.g. --rate 22 --step-at 30s --step-rate 176: a storm starting at 30 s).")
    java.time.Duration stepAt;

    @Option(names = "--step-rate", paramLabel = "RATE",
            description = "Arrivals per second from --step-at on.")
    Double stepRate;

    @Option(names = "--closed-loop", defaultValue = "0", paramLabel = "USERS",
            description = "Closed model instead: USERS callers, each sending its next connect when the previous one "
                    + "is answered (capacity measurement). Use with --pipelining 1 --pool-size USERS.")
    int closedLoopUsers;

    @Option(names = "--each-device-once",
            description = "With --closed-loop: one pass over the population instead of cycling: every device until it "
                    + "is allowed once (a failed one is tried again later, at most 5 times); the run ends when the "
                    + "pass is done, --duration is then its limit (e.g. to have every device verified once).")
    boolean eachDeviceOnce;

    @Option(names = "--disconnect-after-allow",
            description = "Open model: an allowed device disconnects at once and may arrive again (a reconnect storm "
                    + "of known devices at more arrivals than devices); default: it stays connected.")
    boolean disconnectAfterAllow;

    @Option(names = "--duration", defaultValue = "30s", converter = DurationConverter.class,
            description = "Run time; the run stops by itself (default: ${DEFAULT-VALUE}).")
    java.time.Duration duration;

    @Option(names = "--warmup", defaultValue = "0s", converter = DurationConverter.class,
            description = "First part of the run left out of the totals (default: ${DEFAULT-VALUE}).")
    java.time.Duration warmup;

    @Mixin
    PopulationOptions population;

    @Option(names = "--part", paramLabel = "NAME:PREFIX:DEVICES:SHARE",
            description = "A part of the population (repeatable; the shares add up to 1), instead of --devices and "
                    + "--device-prefix: arrivals go to a part by its share, and the summary gives each part its own "
                    + "figures (first-attempt success, goodput, latency). E.g. --part known:bench-known-:20000:0.9 "
                    + "--part cold:bench-cold-:2000:0.1.")
    List<String> parts = new ArrayList<>();

    @Spec
    CommandSpec spec;

    @Option(names = "--wrong-password-share", defaultValue = "0.0",
            description = "Share of registered devices presenting a wrong password (default: ${DEFAULT-VALUE}).")
    double wrongPasswordShare;

    @Option(names = "--unknown-share", defaultValue = "0.0",
            description = "Share of arrivals from devices that were never registered (default: ${DEFAULT-VALUE}).")
    double unknownShare;

    @Option(names = "--retry", defaultValue = "fixed:12s",
            description = "Device retry after a failed connect: fixed:12s (the incident), backoff:1s..60s "
                    + "(exponential, full jitter) or none (default: ${DEFAULT-VALUE}).")
    String retry;

    @Option(names = "--seed", defaultValue = "42", description = "Random seed (default: ${DEFAULT-VALUE}).")
    long seed;

    @Mixin
    DatabaseOptions database;

    @Option(names = "--out", defaultValue = "target/loadtest",
            description = "Output directory for summary.json and report.html (default: ${DEFAULT-VALUE}).")
    Path out;

    @Option(names = "--label", defaultValue = "run", description = "Name of the run in reports (default: ${DEFAULT-VALUE}).")
    String label;

    @Option(names = "--progress", defaultValue = "auto",
            description = "auto (in place on a terminal, else one line per second), tty, lines or none.")
    ProgressLine.Mode progress;

    @Option(names = "--steady-state-from", converter = DurationConverter.class, paramLabel = "TIME",
            description = "Start of the steady-state window (the headline). Default: request_timeout + one retry "
                    + "period (fixed:12s -> +12s; backoff:B..C -> +C/2; none -> +0.5s), after --step-at if set; "
                    + "the counted run for --closed-loop.")
    java.time.Duration steadyStateFrom;

    @Option(names = "--service-metrics", defaultValue = "auto", paramLabel = "auto|none|URL",
            description = "The service's Prometheus endpoint, scraped at the start and end of the windows for wasted "
                    + "work (identity_bcrypt_duration_seconds_count, identity_bcrypt_wasted_total). auto: /q/metrics "
                    + "on --url's host, plain HTTP, on the services' default management port (--url's port + 1000, as the "
                    + "local stacks run them; the chart's is management.port, 9000: give its URL); none: no scrape "
                    + "(default: ${DEFAULT-VALUE}).")
    String serviceMetrics;

    @Option(names = "--capacity", paramLabel = "ALLOWS_PER_S",
            description = "The service's measured capacity; the summary then gives goodput / capacity.")
    Double capacity;

    @Override
    public Integer call() throws Exception {
        for (URI url : allUrls()) {
            if (!isLoopback(url)) {
                System.err.println("refusing to load " + url.getHost() + ": this tool only targets loopback addresses");
                return 2;
            }
        }
        URI metricsUrl = metricsUrl();
        if (metricsUrl != null && !isLoopback(metricsUrl)) {
            System.err.println("refusing to scrape " + metricsUrl.getHost() + ": loopback addresses only");
            return 2;
        }
        RunSettings settings;
        try {
            settings = settings(metricsUrl);
        } catch (IllegalArgumentException e) {
            System.err.println("loadtest run: " + e.getMessage());
            return 2;
        }
        List<String> unreadable = unreadableFiles();
        if (!unreadable.isEmpty()) {
            unreadable.forEach(file -> System.err.println(file + " cannot be read"));
            return 2;
        }
        if (settings.tls().certificate().isPresent()) {
            Vertx vertx = Vertx.vertx();
            try {
                settings.tls().certificate().get().load(vertx);
            } catch (IllegalArgumentException e) {
                System.err.println("loadtest run: " + e.getMessage());
                return 2;
            } finally {
                vertx.close();
            }
        }
        RunSummary summary = new LoadRun(settings, System.err).execute();
        WindowSummary s = summary.steadyState();
        WindowSummary w = summary.wholeRun();
        System.out.printf("%s: steady state (%d-%d s) goodput %.1f allows/s%s, whole run %.1f/s; wasted %s; "
                        + "p99 allow %s ms, p99 503 %s ms (at the service %s ms); outcomes %s; EMQX queue peak %d; "
                        + "lag %d ms -> %s%n",
                label, s.startS(), s.endS(), s.goodput(),
                s.goodputPerCapacity() == null ? "" : " (" + s.goodputPerCapacity() + " of capacity)", w.goodput(),
                s.wastedWork().fraction() == null ? "-" : Math.round(s.wastedWork().fraction() * 100) + " %",
                p99(s.latencyAllow()), p99(s.latency503()), p99(s.latency503AtService()), s.outcomes(),
                s.emqxQueuePeak(),
                w.maxGeneratorLagMs(), out.resolve("report.html"));
        if (s.parts() != null) {
            s.parts().values().forEach(part -> System.out.printf("  %s: demand %.1f/s, goodput %.1f allows/s%s, "
                            + "first-attempt success %s of %d, p99 allow %s ms; %s%n", part.name(), part.demand(),
                    part.goodput(), part.goodputPerCapacity() == null ? "" : " (" + part.goodputPerCapacity()
                            + " of capacity)",
                    part.firstAttemptSuccessShare() == null ? "-"
                            : String.format("%.1f %%", part.firstAttemptSuccessShare() * 100),
                    part.firstAttempts(), p99(part.latencyAllow()), part.results()));
        }
        return 0;
    }

    private static String p99(io.deviceidentity.loadtest.report.LatencySummary latency) {
        return latency.count() == 0 ? "-" : String.format("%.0f", latency.p99Ms());
    }

    /** The run as these options describe it (the command's whole parsing, without running anything). */
    RunSettings settings(URI metricsUrl) {
        if ((stepAt == null) != (stepRate == null)) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "--step-at and --step-rate go together");
        }
        if ((clientCert == null) != (clientKey == null)) {
            throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "--client-cert and --client-key go together");
        }
        RateSchedule schedule = stepAt == null ? RateSchedule.constant(rate) : new RateSchedule(rate, stepAt, stepRate);
        return new RunSettings(label, urls, joining, onJoinMode(), readinessPeriod, readinessPortOffset, poolSize, pipelining, requestTimeout, schedule, closedLoopUsers, duration,
                warmup, population.spec(parts(), wrongPasswordShare, unknownShare, seed), RetryPolicy.parse(retry),
                database.access(), out, progress, steadyStateFrom, metricsUrl, capacity, eachDeviceOnce,
                disconnectAfterAllow, new ClientTls(Optional.ofNullable(caFile),
                        Optional.ofNullable(clientCert).map(cert -> new ClientCertificate(cert, clientKey))));
    }

    /** The files the options name that this process cannot read, as "--option path" (checked before any load). */
    List<String> unreadableFiles() {
        List<String> unreadable = new ArrayList<>();
        if (caFile != null && !Files.isReadable(caFile)) {
            unreadable.add("--ca-file " + caFile);
        }
        if (clientCert != null && !Files.isReadable(clientCert)) {
            unreadable.add("--client-cert " + clientCert);
        }
        if (clientKey != null && !Files.isReadable(clientKey)) {
            unreadable.add("--client-key " + clientKey);
        }
        return unreadable;
    }

    private List<PopulationPart> parts() {
        if (parts.isEmpty()) {
            return List.of();
        }
        picocli.CommandLine.ParseResult parsed = spec == null ? null : spec.commandLine().getParseResult();
        if (parsed != null && (parsed.hasMatchedOption("--devices") || parsed.hasMatchedOption("--device-prefix"))) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(),
                    "--part describes the population: leave out --devices and --device-prefix");
        }
        try {
            return parts.stream().map(PopulationPart::parse).toList();
        } catch (IllegalArgumentException e) {
            throw new picocli.CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
    }

    private List<URI> allUrls() {
        List<URI> all = new ArrayList<>(urls);
        all.addAll(joining);
        return all;
    }

    private io.deviceidentity.loadtest.emqx.ServiceEndpoints.OnJoin onJoinMode() {
        return switch (onJoin) {
            case "keep" -> io.deviceidentity.loadtest.emqx.ServiceEndpoints.OnJoin.KEEP;
            case "reopen" -> io.deviceidentity.loadtest.emqx.ServiceEndpoints.OnJoin.REOPEN;
            default -> throw new picocli.CommandLine.ParameterException(new picocli.CommandLine(this),
                    "--on-join: keep or reopen, not " + onJoin);
        };
    }

    private static int mainPort(URI url) {
        return url.getPort() > 0 ? url.getPort() : "https".equals(url.getScheme()) ? 443 : 80;
    }

    /** --service-metrics: null for none; auto behind several replicas is none (one replica's counters would mislead). */
    URI metricsUrl() {
        URI url = urls.isEmpty() ? URI.create("http://127.0.0.1:8081/mqtt/authn") : urls.get(0);
        return switch (serviceMetrics) {
            case "none" -> null;
            // The services serve metrics on their management interface, plain HTTP, by default the main port + 1000
            // (identity-core ManagementSettings), whatever scheme the main port speaks.
            case "auto" -> allUrls().size() > 1 ? null
                    : URI.create("http://" + url.getHost() + ":" + (mainPort(url) + 1000) + "/q/metrics");
            default -> URI.create(serviceMetrics);
        };
    }

    /**
     * Load goes to this machine only: the tool is for the local stack and for Jobs inside a test cluster, where the
     * service name resolves through the cluster's DNS (set LOADTEST_ALLOW_HOST to that name there).
     */
    private static boolean isLoopback(URI url) {
        String host = url.getHost();
        String allowed = System.getenv("LOADTEST_ALLOW_HOST");
        return host != null && (host.equals("localhost") || host.startsWith("127.") || host.equals("[::1]")
                || host.equals(allowed));
    }

    /** picocli converter for 500ms / 12s / 1m. */
    public static final class DurationConverter implements picocli.CommandLine.ITypeConverter<java.time.Duration> {
        @Override
        public java.time.Duration convert(String value) {
            return Durations.parse(value);
        }
    }
}
