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
    /** The registration operation an outcome belongs to: put, get, delete, import. */
    public static final String TAG_OPERATION = "operation";
    /** Counter of bulk-imported rows, tagged {@link #TAG_RESULT}: imported, replaced, skipped, rejected. */
    public static final String REGISTRATION_IMPORT_ROWS = "identity.registration.import.rows";

    /** Gauge: 1 while registration-service kicks revoked and re-keyed devices off EMQX (an EMQX API is configured). */
    public static final String KICKS_ENABLED = "identity.registration.kicks.enabled";
    /** Gauge of kicks recorded and not yet delivered, and of the oldest one's age (seconds). */
    public static final String KICKS_PENDING = "identity.registration.kicks.pending";
    public static final String KICKS_OLDEST_PENDING = "identity.registration.kicks.oldest.pending";
    /** Counter of kicks EMQX answered, tagged {@link #TAG_RESULT}: kicked (204), not_connected (404). */
    public static final String KICKS_DELIVERED = "identity.registration.kicks.delivered";
    /** Counter of failed kick attempts (each retried), tagged {@link #TAG_REASON}. */
    public static final String KICK_FAILURES = "identity.registration.kick.failures";

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
    /** Gauge: bcrypt threads that asked for SCHED_IDLE and did not get it (the kernel reported another policy). */
    public static final String BCRYPT_IDLE_FAILURES = "identity.bcrypt.idle.failures";
    /** Gauge: 1 while nothing runs or waits and a cost-10 check arriving now would be refused (not ready). */
    public static final String BCRYPT_REFUSING_IDLE = "identity.bcrypt.refusing.idle";
    /** Gauge: measured time of one cost-10 bcrypt verification (seconds), admission's estimate. */
    public static final String BCRYPT_UNIT_SECONDS = "identity.bcrypt.unit.duration";
    public static final String BCRYPT_ACTIVE = "identity.bcrypt.active";
    public static final String BCRYPT_CONCURRENCY = "identity.bcrypt.concurrency";
    /** Counter of bcrypt work refused by the waiting-time rule, tagged {@link #TAG_STAGE}. */
    public static final String BCRYPT_REFUSED = "identity.bcrypt.refused";
    /** Counter of bcrypt work skipped at start because its deadline had passed, tagged {@link #TAG_REASON}. */
    public static final String BCRYPT_SKIPPED = "identity.bcrypt.skipped";
    /** Counter of hashes that finished after their request's deadline: work nobody read. */
    public static final String BCRYPT_WASTED = "identity.bcrypt.wasted";

    /** Counter of cold checks that joined an identical one already in flight instead of hashing again. */
    public static final String BCRYPT_JOINED = "identity.bcrypt.joined";
    /** Gauge of distinct cold checks in flight (each one bcrypt). */
    public static final String BCRYPT_FLIGHTS = "identity.bcrypt.flights";

    /** Gauge: 1 while auth-service's verified-credential fast path is on. */
    public static final String FASTPATH_ENABLED = "identity.fastpath.enabled";
    /** Counter of allows by a matching verifier, without bcrypt. */
    public static final String FASTPATH_ALLOWS = "identity.fastpath.allows";
    /** Counter of checks that fell back to bcrypt, tagged {@link #TAG_CAUSE}: no_verifier, unknown_key, mismatch. */
    public static final String FASTPATH_FALLBACKS = "identity.fastpath.fallbacks";
    /** Counter of verifier writes, tagged {@link #TAG_RESULT}: written, stale (the row changed), failed. */
    public static final String FASTPATH_WRITES = "identity.fastpath.writes";
    /** Counter of verifier writes dropped, tagged {@link #TAG_CAUSE}: queue_full, too_old. */
    public static final String FASTPATH_WRITES_DROPPED = "identity.fastpath.writes.dropped";
    /** Gauge of verifier writes waiting for the writer. */
    public static final String FASTPATH_WRITE_QUEUE_DEPTH = "identity.fastpath.write.queue.depth";

    /** Gauge of database-step threads busy, and counter of requests refused because none was free. */
    public static final String DATABASE_ACTIVE = "identity.database.active";
    public static final String DATABASE_CONCURRENCY = "identity.database.concurrency";
    public static final String DATABASE_REFUSED = "identity.database.refused";
    /** Gauge of database steps waiting for a thread, and timer of how long they waited. */
    public static final String DATABASE_QUEUE_DEPTH = "identity.database.queue.depth";
    public static final String DATABASE_QUEUE_WAIT = "identity.database.queue.wait";

    /** auth-service's shared failure budgets: batches of failure counts written, by result (written, failed). */
    public static final String BUDGET_WRITES = "identity.budget.writes";
    /** Failure counts not shared because too many keys were waiting for the writer (the local count still holds). */
    public static final String BUDGET_WRITES_DROPPED = "identity.budget.writes.dropped";
    /** Unknown client ids answered from the negative cache, without reading their row. */
    public static final String UNKNOWN_CACHE_HITS = "identity.unknown.cache.hits";
    /** Reads of the registration epochs (one serves every request that was waiting for it). */
    /** Credential reads by where they were answered (tag source: standby, primary_standby_behind, ...). */
    public static final String STANDBY_READS = "identity.standby.reads";
    public static final String EPOCH_READS = "identity.epoch.reads";

    public static final String TAG_RESULT = "result";
    public static final String TAG_REASON = "reason";
    /** Where the waiting-time rule refused: {@code admission} or {@code dequeue}. */
    public static final String TAG_STAGE = "stage";
    public static final String TAG_CAUSE = "cause";

    private MetricNames() {
    }
}
