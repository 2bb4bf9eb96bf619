package io.deviceidentity.metrics;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.LongSupplier;

import jakarta.enterprise.context.ApplicationScoped;
import jakarta.inject.Inject;

import org.jboss.logging.Logger;

import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.http.Answer;
import io.deviceidentity.http.ErrorResponses;
import io.deviceidentity.overload.Deadline;
import io.deviceidentity.overload.OverloadConfig;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Logs every answered request once, with its result and reason, and counts it in a metric tagged the same way.
 * Only ids and labels are logged: never a password, hash or token. A client id that is not a valid id is logged
 * as {@code -}, since it came from the caller and could carry anything.
 *
 * <p>Refusals ({@code 503}: overload, deadline, backend unavailable) are the exception: at INFO they are summarised,
 * one line per operation and reason at most every {@code identity.overload.refusal-log-interval}
 * ({@link RefusalSummary}), because in a storm nearly every answer is one and a line each costs the CPU bcrypt needs;
 * each one is still logged at DEBUG and counted in the metric.
 */
@ApplicationScoped
public class Outcomes {

    private static final Logger LOG = Logger.getLogger("io.deviceidentity.outcome");

    /** Counters are found once per label set, not built per answer: results and reasons are a small fixed set. */
    private static final int MAX_CACHED_COUNTERS = 1024;

    private final MeterRegistry registry;
    private final RefusalSummary refusals;
    private final Map<CounterKey, Counter> counters = new ConcurrentHashMap<>();

    private record CounterKey(String metric, String operation, String result, String reason) {
    }

    @Inject
    public Outcomes(MeterRegistry registry, OverloadConfig config) {
        this(registry, config.refusalLogInterval().toNanos(), System::nanoTime);
    }

    /** With its own clock for the refusal summary: tests run it on a virtual one. */
    public Outcomes(MeterRegistry registry, long refusalLogIntervalNanos, LongSupplier clock) {
        this.registry = registry;
        this.refusals = new RefusalSummary(refusalLogIntervalNanos, clock);
    }

    public void record(String metric, String operation, String clientId, Deadline deadline, Answer answer) {
        record(metric, operation, clientId, deadline, answer.response().getStatus(), answer.result(),
                answer.reason());
    }

    public void record(String metric, String operation, String clientId, Deadline deadline, int status,
            String result, String reason) {
        counter(metric, operation, result, reason).increment();
        boolean summarised = status == 503 && refusals.summarises();
        if (summarised ? LOG.isDebugEnabled() : LOG.isInfoEnabled()) {
            LOG.logf(summarised ? Logger.Level.DEBUG : Logger.Level.INFO,
                    "%s result=%s reason=%s status=%d clientid=%s took_ms=%d", operation, result, reason, status,
                    ClientIdPolicy.isValid(clientId) ? clientId : "-", deadline.elapsedMillis());
        }
        if (summarised) {
            for (RefusalSummary.Line line : refusals.refused(new RefusalSummary.Key(operation, reason))) {
                LOG.infof("%s result=%s reason=%s status=503 count=%d in_last_ms=%d (refusals are summarised)",
                        line.key().operation(), ErrorResponses.RESULT_UNAVAILABLE, line.key().reason(), line.count(),
                        line.spanNanos() / 1_000_000);
            }
        }
    }

    private Counter counter(String metric, String operation, String result, String reason) {
        CounterKey key = new CounterKey(metric, operation, result, reason);
        Counter counter = counters.get(key);
        if (counter != null) {
            return counter;
        }
        Counter.Builder builder = Counter.builder(metric)
                .tag(MetricNames.TAG_RESULT, result)
                .tag(MetricNames.TAG_REASON, reason);
        if (MetricNames.REGISTRATION_OUTCOMES.equals(metric)) {
            // registration-service answers several operations under one metric: which one (put, get, delete,
            // import) tells a failing import from failing reads. authn/authz have a metric each.
            builder.tag(MetricNames.TAG_OPERATION, operation.substring(operation.indexOf('.') + 1));
        }
        counter = builder.register(registry);
        if (counters.size() < MAX_CACHED_COUNTERS) {
            counters.putIfAbsent(key, counter);
        }
        return counter;
    }
}
