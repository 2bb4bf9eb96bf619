package io.deviceidentity.overload;

import jakarta.inject.Singleton;

import io.deviceidentity.metrics.MetricNames;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.binder.MeterBinder;

/**
 * Exports {@link IdleScheduling#failures()}: a bcrypt thread that asked for {@code SCHED_IDLE} and runs at normal
 * priority instead is otherwise only one log line at start-up, and the overload design's priority of refusals over
 * hashing is gone without a trace (as it was in a native image before the C-interface path).
 */
@Singleton
public class IdleSchedulingMetrics implements MeterBinder {

    @Override
    public void bindTo(MeterRegistry registry) {
        Gauge.builder(MetricNames.BCRYPT_IDLE_FAILURES, IdleScheduling::failures)
                .description("bcrypt threads that asked for SCHED_IDLE and did not get it")
                .register(registry);
    }
}
