package io.deviceidentity.metrics;

import jakarta.enterprise.context.ApplicationScoped;

import org.jboss.logging.Logger;

import io.deviceidentity.credentials.ClientIdPolicy;
import io.deviceidentity.http.Answer;
import io.deviceidentity.overload.Deadline;
import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.MeterRegistry;

/**
 * Logs every answered request once, with its result and reason, and counts it in a metric tagged the same way.
 * Only ids and labels are logged: never a password, hash or token. A client id that is not a valid id is logged
 * as {@code -}, since it came from the caller and could carry anything.
 */
@ApplicationScoped
public class Outcomes {

    private static final Logger LOG = Logger.getLogger("io.deviceidentity.outcome");

    private final MeterRegistry registry;

    public Outcomes(MeterRegistry registry) {
        this.registry = registry;
    }

    public void record(String metric, String operation, String clientId, Deadline deadline, Answer answer) {
        record(metric, operation, clientId, deadline, answer.response().getStatus(), answer.result(),
                answer.reason());
    }

    public void record(String metric, String operation, String clientId, Deadline deadline, int status,
            String result, String reason) {
        Counter.Builder counter = Counter.builder(metric)
                .tag(MetricNames.TAG_RESULT, result)
                .tag(MetricNames.TAG_REASON, reason);
        if (MetricNames.REGISTRATION_OUTCOMES.equals(metric)) {
            // registration-service answers several operations under one metric: which one (put, get, delete,
            // import) tells a failing import from failing reads. authn/authz have a metric each.
            counter.tag(MetricNames.TAG_OPERATION, operation.substring(operation.indexOf('.') + 1));
        }
        counter.register(registry).increment();
        if (LOG.isInfoEnabled()) {
            LOG.infof("%s result=%s reason=%s status=%d clientid=%s took_ms=%d", operation, result, reason, status,
                    ClientIdPolicy.isValid(clientId) ? clientId : "-", deadline.elapsedMillis());
        }
    }
}
