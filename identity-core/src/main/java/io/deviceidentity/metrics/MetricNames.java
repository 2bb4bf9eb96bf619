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
    /** Timer of how long bcrypt work waited for a thread. */
    public static final String BCRYPT_QUEUE_WAIT = "identity.bcrypt.queue.wait";
    /** Gauge: how long a request may wait for a bcrypt thread right now (seconds). */
    public static final String BCRYPT_ALLOWED_WAIT = "identity.bcrypt.allowed.wait";
    /** Gauge: 1 while the bcrypt queue has not drained for a whole interval. */
    public static final String BCRYPT_STANDING_QUEUE = "identity.bcrypt.standing.queue";
    /** Gauge: bcrypt threads running under SCHED_IDLE. */
    public static final String BCRYPT_IDLE_THREADS = "identity.bcrypt.idle.threads";
    public static final String BCRYPT_ACTIVE = "identity.bcrypt.active";
    public static final String BCRYPT_CONCURRENCY = "identity.bcrypt.concurrency";
    /** Counter of bcrypt work refused by the waiting-time rule, tagged {@link #TAG_STAGE}. */
    public static final String BCRYPT_REFUSED = "identity.bcrypt.refused";
    /** Counter of bcrypt work skipped at start because its deadline had passed, tagged {@link #TAG_REASON}. */
    public static final String BCRYPT_SKIPPED = "identity.bcrypt.skipped";
    /** Counter of hashes that finished after their request's deadline: work nobody read. */
    public static final String BCRYPT_WASTED = "identity.bcrypt.wasted";

    /** Gauge of database-step threads busy, and counter of requests refused because none was free. */
    public static final String DATABASE_ACTIVE = "identity.database.active";
    public static final String DATABASE_CONCURRENCY = "identity.database.concurrency";
    public static final String DATABASE_REFUSED = "identity.database.refused";

    public static final String TAG_RESULT = "result";
    public static final String TAG_REASON = "reason";
    /** Where the waiting-time rule refused: {@code admission} or {@code dequeue}. */
    public static final String TAG_STAGE = "stage";

    private MetricNames() {
    }
}
