package io.deviceidentity.overload;

import java.util.EnumMap;
import java.util.Locale;
import java.util.Map;
import java.util.concurrent.TimeUnit;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The database lane's meters: refusals by share and rule ({@code identity_database_refused_total{share,cause}}), how
 * long steps waited for a thread, and the lane's state as gauges. A step skipped because its deadline passed is not a
 * refusal here (the request's outcome counts it). Names and tags are {@link MetricNames}', which docs and alerts use.
 */
final class DatabaseMeters implements LaneListener {

    /** The rules the database lane refuses by, each a {@code cause} tag. */
    private static final Refusal[] CAUSES = {Refusal.SHARE_FULL, Refusal.FULL, Refusal.STALLED,
        Refusal.EXPECTED_WAIT, Refusal.WAITED};

    private final Map<Share, Map<Refusal, Counter>> refused = new EnumMap<>(Share.class);
    private final Timer queueWait;

    private DatabaseMeters(MeterRegistry registry) {
        this.queueWait = Timer.builder(MetricNames.DATABASE_QUEUE_WAIT)
                .description("how long database steps waited for a thread").register(registry);
        for (Share share : Share.values()) {
            Map<Refusal, Counter> counters = new EnumMap<>(Refusal.class);
            for (Refusal cause : CAUSES) {
                if (share == Share.KNOWN && cause == Refusal.SHARE_FULL) {
                    continue; // known work may use every thread
                }
                counters.put(cause, Counter.builder(MetricNames.DATABASE_REFUSED)
                        .description("requests refused with 503 overload by the database lane, by share and rule")
                        .tag("share", share.name().toLowerCase(Locale.ROOT)).tag("cause", cause.tag())
                        .register(registry));
            }
            refused.put(share, counters);
        }
    }

    /** The counters and timer, registered before the lane they listen to exists. */
    static DatabaseMeters register(MeterRegistry registry) {
        return new DatabaseMeters(registry);
    }

    /** The gauges of {@code lane}'s state. */
    static void watch(MeterRegistry registry, Lane lane) {
        Gauge.builder(MetricNames.DATABASE_QUEUE_DEPTH, lane, Lane::waiting)
                .description("database steps waiting for a thread").register(registry);
        Gauge.builder(MetricNames.DATABASE_ACTIVE, lane, Lane::running)
                .description("database steps running").register(registry);
        Gauge.builder(MetricNames.DATABASE_CONCURRENCY, lane, Lane::concurrency)
                .description("threads for database steps").register(registry);
    }

    @Override
    public void refused(Share share, Refusal rule) {
        Counter counter = refused.get(share).get(rule);
        if (counter != null) {
            counter.increment();
        }
    }

    @Override
    public void waited(long nanos) {
        queueWait.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void ran(long nanos, boolean late) {
    }
}
