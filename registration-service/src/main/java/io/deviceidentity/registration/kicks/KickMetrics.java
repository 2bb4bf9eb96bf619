package io.deviceidentity.registration.kicks;

import java.time.Clock;
import java.time.Duration;
import java.util.concurrent.atomic.AtomicLong;
import java.util.concurrent.atomic.AtomicReference;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * The kick outbox as Prometheus sees it: {@code identity_registration_kicks_pending} and
 * {@code identity_registration_kicks_oldest_pending_seconds} (read from the table by each worker round, so every
 * replica reports the whole backlog), {@code identity_registration_kicks_delivered_total{result=kicked|not_connected}}
 * and {@code identity_registration_kick_failures_total{reason}} (failed attempts, each retried), and
 * {@code identity_registration_kicks_enabled} (0 when no EMQX API is configured). Every series exists from the start,
 * at zero, so alerts and dashboards never read a missing series.
 */
public final class KickMetrics {

    static final String[] FAILURE_REASONS = {"unreachable", "timeout", "unauthorized", "forbidden", "status_404",
            "status_other", "io_error", "error"};

    private final MeterRegistry registry;
    private final Clock clock;
    private final AtomicLong pending = new AtomicLong();
    private final AtomicReference<KickOutbox.Backlog> backlog =
            new AtomicReference<>(new KickOutbox.Backlog(0, java.util.Optional.empty()));
    private final Counter kicked;
    private final Counter notConnected;

    public KickMetrics(MeterRegistry registry, Clock clock, boolean enabled) {
        this.registry = registry;
        this.clock = clock;
        Gauge.builder(MetricNames.KICKS_ENABLED, () -> enabled ? 1 : 0)
                .description("1 while revocations and password changes also kick the device's live session at EMQX")
                .register(registry);
        Gauge.builder(MetricNames.KICKS_PENDING, pending, AtomicLong::get)
                .description("Kicks recorded and not yet delivered to EMQX (all replicas)")
                .register(registry);
        Gauge.builder(MetricNames.KICKS_OLDEST_PENDING, this, KickMetrics::oldestPendingSeconds)
                .description("Age of the oldest kick not yet delivered to EMQX (0 when none)")
                .baseUnit("seconds")
                .register(registry);
        this.kicked = delivered("kicked");
        this.notConnected = delivered("not_connected");
        for (String reason : FAILURE_REASONS) {
            failures(reason);
        }
    }

    private Counter delivered(String result) {
        return Counter.builder(MetricNames.KICKS_DELIVERED).tag(MetricNames.TAG_RESULT, result)
                .description("Kicks EMQX answered: kicked (204) or not_connected (404 CLIENTID_NOT_FOUND)")
                .register(registry);
    }

    private Counter failures(String reason) {
        return Counter.builder(MetricNames.KICK_FAILURES).tag(MetricNames.TAG_REASON, reason)
                .description("Kick attempts that failed and will be retried")
                .register(registry);
    }

    void delivered(KickResult result) {
        (result == KickResult.NOT_CONNECTED ? notConnected : kicked).increment();
    }

    void failed(String reason) {
        failures(reason.startsWith("status_") && !reason.equals("status_404") ? "status_other" : reason).increment();
    }

    void backlog(KickOutbox.Backlog now) {
        backlog.set(now);
        pending.set(now.pending());
    }

    double oldestPendingSeconds() {
        return backlog.get().oldest()
                .map(oldest -> Math.max(0, Duration.between(oldest, clock.instant()).toMillis() / 1000.0))
                .orElse(0.0);
    }

    public long pending() {
        return pending.get();
    }
}
