package io.deviceidentity.loadtest.run;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.stream.Stream;

import io.deviceidentity.loadtest.db.DatabaseAccess;
import io.deviceidentity.loadtest.devices.Durations;
import io.deviceidentity.loadtest.devices.PopulationSpec;
import io.deviceidentity.loadtest.devices.RateSchedule;
import io.deviceidentity.loadtest.devices.RetryPolicy;
import io.deviceidentity.loadtest.emqx.ClientTls;
import io.deviceidentity.loadtest.emqx.ServiceEndpoints;
import io.deviceidentity.loadtest.report.ProgressLine;

/**
 * One load run, fully described. {@code closedLoopUsers > 0} selects the closed model (capacity measurement);
 * otherwise devices arrive on the {@code rate} schedule. {@code steadyStateFrom} overrides the steady-state rule
 * (null: {@link io.deviceidentity.loadtest.report.SteadyStateWindow}); {@code serviceMetrics} is the service's
 * Prometheus endpoint (null: not scraped); {@code capacity} (allows/s, null if unknown) scales goodput.
 * {@code eachDeviceOnce}: the closed loop makes one pass over the population and the run ends when it is done
 * ({@link io.deviceidentity.loadtest.devices.ClosedLoop.Mode#EACH_ONCE}); {@code disconnectAfterAllow}: in the open
 * model an allowed device is idle again at once and may arrive again (a reconnect storm). Several {@code urls}: replicas
 * behind one Kubernetes Service ({@link ServiceEndpoints}); {@code joining}: replicas that become endpoints once their
 * readiness check (polled every {@code readinessPeriod}, as the kubelet does, at the replica's port +
 * {@code readinessPortOffset}: the services' management interface) answers, {@code onJoin} what EMQX's open
 * connections do then. {@code https} URLs are spoken over TLS, checked against {@code tls} and presenting its client
 * certificate if it has one.
 */
public record RunSettings(
        String label,
        List<URI> urls,
        List<URI> joining,
        ServiceEndpoints.OnJoin onJoin,
        Duration readinessPeriod,
        int readinessPortOffset,
        int poolSize,
        int pipelining,
        Duration requestTimeout,
        RateSchedule rate,
        int closedLoopUsers,
        Duration duration,
        Duration warmup,
        PopulationSpec population,
        RetryPolicy retry,
        DatabaseAccess database,
        Path outputDirectory,
        ProgressLine.Mode progress,
        Duration steadyStateFrom,
        URI serviceMetrics,
        Double capacity,
        boolean eachDeviceOnce,
        boolean disconnectAfterAllow,
        ClientTls tls) {

    public RunSettings {
        if (duration.compareTo(warmup) <= 0) {
            throw new IllegalArgumentException("--duration must be longer than --warmup");
        }
        if (steadyStateFrom != null && steadyStateFrom.compareTo(duration) >= 0) {
            throw new IllegalArgumentException("--steady-state-from must be shorter than --duration");
        }
        urls = List.copyOf(urls);
        joining = List.copyOf(joining);
        if (urls.isEmpty()) {
            throw new IllegalArgumentException("--url: at least one");
        }
        String scheme = urls.get(0).getScheme();
        for (URI u : urls) {
            if (!("http".equals(u.getScheme()) || "https".equals(u.getScheme())) || u.getPort() < 1) {
                throw new IllegalArgumentException("--url must be an http:// or https:// URL with a port: " + u);
            }
        }
        for (URI u : joining) {
            if (u.getPort() < 1 || !u.getPath().equals(urls.get(0).getPath())) {
                throw new IllegalArgumentException("--join must be a URL with a port and --url's path: " + u);
            }
        }
        if (Stream.concat(urls.stream(), joining.stream()).anyMatch(u -> !scheme.equals(u.getScheme()))) {
            throw new IllegalArgumentException("every --url and --join has the same scheme (one Service, one listener)");
        }
        tls = tls == null ? ClientTls.JVM_TRUST : tls;
        if (tls.caFile().isPresent() && !"https".equals(scheme)) {
            throw new IllegalArgumentException("--ca-file is the CA an https:// --url is checked against: the URL is " + scheme);
        }
        if (tls.certificate().isPresent() && !"https".equals(scheme)) {
            throw new IllegalArgumentException("--client-cert and --client-key are presented to an https:// --url over TLS: "
                    + "the URL is " + scheme);
        }
        String path = urls.get(0).getPath();
        if (urls.stream().anyMatch(u -> !u.getPath().equals(path))) {
            throw new IllegalArgumentException("every --url has the same path (one Service, one authenticator)");
        }
        if (readinessPeriod.isZero() || readinessPeriod.isNegative()) {
            throw new IllegalArgumentException("--readiness-period must be positive");
        }
        for (URI replica : joining) {
            int probed = (replica.getPort() < 0 ? 80 : replica.getPort()) + readinessPortOffset;
            if (probed < 1 || probed > 65535) {
                throw new IllegalArgumentException("--readiness-port-offset " + readinessPortOffset + " probes " + replica
                        + " on port " + probed + ", which is not a port");
            }
        }
        if (eachDeviceOnce && closedLoopUsers < 1) {
            throw new IllegalArgumentException("--each-device-once is a closed-loop pass: use it with --closed-loop");
        }
        if (disconnectAfterAllow && closedLoopUsers > 0) {
            throw new IllegalArgumentException("--disconnect-after-allow is for the open model (a closed loop cycles anyway)");
        }
    }

    /** The first replica's address (the only one behind a single address). */
    public URI url() {
        return urls.get(0);
    }

    /** Whether EMQX's pool talks to a Service of several replicas (per-replica figures, replicas.csv). */
    public boolean behindService() {
        return urls.size() > 1 || !joining.isEmpty();
    }

    /** What summary.json records about the run (no passwords). */
    public Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("url", url().toString());
        tls.caFile().ifPresent(ca -> d.put("ca_file", ca.toString()));
        // The certificate's path only (the key's file is not the run's business, its content never).
        tls.certificate().ifPresent(c -> d.put("client_cert", c.certificate().toString()));
        if (behindService()) {
            d.put("replicas", urls.stream().map(URI::toString).toList());
            if (!joining.isEmpty()) {
                d.put("joining", joining.stream().map(URI::toString).toList());
                d.put("on_join", onJoin.name().toLowerCase(java.util.Locale.ROOT));
                d.put("readiness_period", Durations.format(readinessPeriod));
                d.put("readiness_port_offset", readinessPortOffset);
            }
        }
        d.put("model", closedLoopUsers > 0 ? "closed-loop" : "open");
        if (closedLoopUsers > 0) {
            d.put("closed_loop_users", closedLoopUsers);
            if (eachDeviceOnce) {
                d.put("each_device_once", true);
            }
        } else {
            d.put("rate", rate.rate());
            if (rate.hasStep()) {
                d.put("step_at", Durations.format(rate.stepAt()));
                d.put("step_rate", rate.stepRate());
            }
            d.put("retry", retry.describe());
            if (disconnectAfterAllow) {
                d.put("disconnect_after_allow", true);
            }
        }
        d.put("pool_size", poolSize);
        d.put("pipelining", pipelining);
        d.put("request_timeout", Durations.format(requestTimeout));
        d.put("duration", Durations.format(duration));
        d.put("warmup", Durations.format(warmup));
        d.put("devices", population.devices());
        if (population.hasParts()) {
            Map<String, Object> parts = new LinkedHashMap<>();
            population.parts().forEach(part -> parts.put(part.name(),
                    Map.of("id_prefix", part.idPrefix(), "devices", part.devices(), "share", part.share())));
            d.put("parts", parts);
        }
        d.put("wrong_password_share", population.wrongPasswordShare());
        d.put("unknown_share", population.unknownShare());
        d.put("service_metrics", serviceMetrics == null ? "none" : serviceMetrics.toString());
        if (capacity != null) {
            d.put("capacity", capacity);
        }
        return d;
    }
}
