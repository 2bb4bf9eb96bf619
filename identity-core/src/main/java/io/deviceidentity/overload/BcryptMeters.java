package io.deviceidentity.overload;

import java.util.concurrent.TimeUnit;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Timer;

/**
 * The bcrypt lane's meters: hash time, queue wait, refusals by stage ({@code admission}: before the queue;
 * {@code dequeue}: when a thread took it), work skipped because its deadline had passed, work finished after it
 * (wasted), and the lane's state as gauges. Names and tags are {@link MetricNames}', which docs and alerts use.
 */
final class BcryptMeters implements LaneListener {

    private final Timer hashTimer;
    private final Timer queueWait;
    private final Counter refusedAtAdmission;
    private final Counter refusedAtDequeue;
    private final Counter skippedDeadline;
    private final Counter wasted;

    private BcryptMeters(MeterRegistry registry) {
        this.hashTimer = Timer.builder(MetricNames.BCRYPT_DURATION)
                .description("Time spent computing one bcrypt hash or verification")
                .publishPercentiles(0.5, 0.9, 0.99)
                .register(registry);
        this.queueWait = Timer.builder(MetricNames.BCRYPT_QUEUE_WAIT)
                .description("Time bcrypt work waited for a thread")
                .publishPercentiles(0.5, 0.99)
                .register(registry);
        this.refusedAtAdmission = refused(registry, "admission");
        this.refusedAtDequeue = refused(registry, "dequeue");
        this.skippedDeadline = Counter.builder(MetricNames.BCRYPT_SKIPPED)
                .description("bcrypt work skipped at start because its request's deadline had passed")
                .tag(MetricNames.TAG_REASON, UnavailableReason.DEADLINE.label())
                .register(registry);
        this.wasted = Counter.builder(MetricNames.BCRYPT_WASTED)
                .description("bcrypt work finished after its request's deadline: nobody read the answer")
                .register(registry);
    }

    /** The counters and timers, registered before the lane they listen to exists. */
    static BcryptMeters register(MeterRegistry registry) {
        return new BcryptMeters(registry);
    }

    /** The gauges of {@code lane}'s state, and of its threads under {@code SCHED_IDLE}. */
    static void watch(MeterRegistry registry, Lane lane, BcryptScheduling scheduling) {
        Gauge.builder(MetricNames.BCRYPT_QUEUE_DEPTH, lane, Lane::waiting)
                .description("bcrypt tasks waiting for a thread").register(registry);
        Gauge.builder(MetricNames.BCRYPT_ACTIVE, lane, Lane::running)
                .description("bcrypt tasks running").register(registry);
        Gauge.builder(MetricNames.BCRYPT_CONCURRENCY, lane, Lane::concurrency)
                .description("bcrypt threads").register(registry);
        Gauge.builder(MetricNames.BCRYPT_ALLOWED_WAIT, lane, l -> l.allowedWaitNanos() / 1e9)
                .description("How long a request may wait for a bcrypt thread right now")
                .baseUnit("seconds").register(registry);
        Gauge.builder(MetricNames.BCRYPT_STANDING_QUEUE, lane, l -> l.standing() ? 1 : 0)
                .description("1 while the bcrypt queue has not drained for a whole interval (overload)")
                .register(registry);
        Gauge.builder(MetricNames.BCRYPT_REFUSING_IDLE, lane, l -> l.refusesWhileIdle() ? 1 : 0)
                .description("1 while no bcrypt work runs or waits and a cost-10 check arriving now would still be"
                        + " refused: the replica cannot verify any password (not ready)")
                .register(registry);
        Gauge.builder(MetricNames.BCRYPT_UNIT_SECONDS, lane, l -> l.nanosPerUnit() / 1e9)
                .description("Measured time of one cost-10 bcrypt verification (moving average), the admission"
                        + " estimate of queued work")
                .baseUnit("seconds").register(registry);
        // Gauges hold their object weakly: the scheduling, which the lane's threads hold, not a lambda made here.
        Gauge.builder(MetricNames.BCRYPT_IDLE_THREADS, scheduling, BcryptScheduling::idleThreads)
                .description("bcrypt threads running under SCHED_IDLE").register(registry);
    }

    @Override
    public void refused(Share share, Refusal rule) {
        switch (rule) {
            case DEADLINE -> skippedDeadline.increment();
            case WAITED -> refusedAtDequeue.increment();
            default -> refusedAtAdmission.increment();
        }
    }

    @Override
    public void waited(long nanos) {
        queueWait.record(nanos, TimeUnit.NANOSECONDS);
    }

    @Override
    public void ran(long nanos, boolean late) {
        hashTimer.record(nanos, TimeUnit.NANOSECONDS);
        if (late) {
            wasted.increment();
        }
    }

    private static Counter refused(MeterRegistry registry, String stage) {
        return Counter.builder(MetricNames.BCRYPT_REFUSED)
                .description("bcrypt work refused with 503 overload by the waiting-time rule")
                .tag(MetricNames.TAG_STAGE, stage)
                .register(registry);
    }
}
