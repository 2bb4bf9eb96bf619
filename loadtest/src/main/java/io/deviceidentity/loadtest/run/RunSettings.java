package io.deviceidentity.loadtest.run;

import java.net.URI;
import java.nio.file.Path;
import java.time.Duration;
import java.util.LinkedHashMap;
import java.util.Map;

import io.deviceidentity.loadtest.db.DatabaseAccess;
import io.deviceidentity.loadtest.devices.Durations;
import io.deviceidentity.loadtest.devices.PopulationSpec;
import io.deviceidentity.loadtest.devices.RateSchedule;
import io.deviceidentity.loadtest.devices.RetryPolicy;
import io.deviceidentity.loadtest.report.ProgressLine;

/**
 * One load run, fully described. {@code closedLoopUsers > 0} selects the closed model (capacity measurement);
 * otherwise devices arrive on the {@code rate} schedule. {@code steadyStateFrom} overrides the steady-state rule
 * (null: {@link io.deviceidentity.loadtest.report.SteadyStateWindow}); {@code serviceMetrics} is the service's
 * Prometheus endpoint (null: not scraped); {@code capacity} (allows/s, null if unknown) scales goodput.
 * {@code eachDeviceOnce}: the closed loop makes one pass over the population and the run ends when it is done
 * ({@link io.deviceidentity.loadtest.devices.ClosedLoop.Mode#EACH_ONCE}); {@code disconnectAfterAllow}: in the open
 * model an allowed device is idle again at once and may arrive again (a reconnect storm).
 */
public record RunSettings(
        String label,
        URI url,
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
        boolean disconnectAfterAllow) {

    public RunSettings {
        if (duration.compareTo(warmup) <= 0) {
            throw new IllegalArgumentException("--duration must be longer than --warmup");
        }
        if (steadyStateFrom != null && steadyStateFrom.compareTo(duration) >= 0) {
            throw new IllegalArgumentException("--steady-state-from must be shorter than --duration");
        }
        if (!"http".equals(url.getScheme())) {
            throw new IllegalArgumentException("--url must be an http:// URL");
        }
        if (eachDeviceOnce && closedLoopUsers < 1) {
            throw new IllegalArgumentException("--each-device-once is a closed-loop pass: use it with --closed-loop");
        }
        if (disconnectAfterAllow && closedLoopUsers > 0) {
            throw new IllegalArgumentException("--disconnect-after-allow is for the open model (a closed loop cycles anyway)");
        }
    }

    /** What summary.json records about the run (no passwords). */
    public Map<String, Object> describe() {
        Map<String, Object> d = new LinkedHashMap<>();
        d.put("url", url.toString());
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
