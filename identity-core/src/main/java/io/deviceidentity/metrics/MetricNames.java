package io.deviceidentity.metrics;

/**
 * Metric names both services publish at {@code /q/metrics}. Dashboards and alerts depend on them: rename only
 * together with the chart's Grafana dashboard. Prometheus adds {@code _total}, {@code _seconds} and so on.
 */
public final class MetricNames {

    /** Counter of answers, tagged {@link #TAG_RESULT} and {@link #TAG_REASON}. */
    public static final String AUTHN_OUTCOMES = "identity.authn.outcomes";
    public static final String AUTHZ_OUTCOMES = "identity.authz.outcomes";
    public static final String REGISTRATION_OUTCOMES = "identity.registration.outcomes";

    public static final String BCRYPT_DURATION = "identity.bcrypt.duration";
    public static final String BCRYPT_QUEUE_DEPTH = "identity.bcrypt.queue.depth";
    public static final String BCRYPT_QUEUE_CAPACITY = "identity.bcrypt.queue.capacity";
    public static final String BCRYPT_ACTIVE = "identity.bcrypt.active";
    public static final String BCRYPT_CONCURRENCY = "identity.bcrypt.concurrency";
    /** Counter of bcrypt work refused at admission or skipped at start, tagged {@link #TAG_REASON}. */
    public static final String BCRYPT_SKIPPED = "identity.bcrypt.skipped";

    public static final String TAG_RESULT = "result";
    public static final String TAG_REASON = "reason";

    private MetricNames() {
    }
}
