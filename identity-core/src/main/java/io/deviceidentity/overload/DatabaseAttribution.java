package io.deviceidentity.overload;

import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Whether a database-lane refusal (or a deadline passed meanwhile) is told as this service's overload or as the
 * database's fault, {@code backend_unavailable}: the one place that decides it. {@code overload} sends an operator to
 * this service's capacity, {@code backend_unavailable} to the database, and in a failover every refusal must name the
 * database. A step's failure is classified ({@link BackendFailures}: a database error is {@code backend_unavailable},
 * never a 500).
 *
 * <p>The database is at fault when
 * <ul>
 * <li>more than half the threads hold request steps whose statements have waited on it for {@link #STALL_NANOS} or
 * longer, counted from the moment the step had its pooled connection ({@link PooledConnections#take}): a read takes
 * about a millisecond, a slowed one tens; this catches a database that went silent (a killed primary, a lock held
 * across the table) from the first fraction of a second, before any read has failed: the driver gives up on a silent
 * server only after its socket timeout, seconds later. The limit is above the longest pause this service causes
 * itself (a CFS-throttled pod stops for at most its quota period's remainder, under 100 ms), so a starved service is
 * not mistaken for a stalled database. A step still waiting for its connection counts only after
 * {@link #ACQUIRING_STALL_NANOS}: the pool validates a connection idle for a second with a round trip through
 * PgBouncer, which waits on a database that does not answer as a statement does, but it also opens connections when a
 * burst grows it (a TLS handshake and a SCRAM exchange each, hundreds of milliseconds on a busy CPU), which is this
 * service's work. When the pool has an idle connection to lend, or is reopening one below the number it keeps
 * ({@link PooledConnections#waitIsTheDatabasePaths}), the wait is the database path's, and the step counts after
 * {@link #STALL_NANOS}, as a statement does. That is the failover's case: PgBouncer's connections to the lost primary
 * are gone; the pool's connections to PgBouncer are validated through PgBouncer, which holds the check until a server
 * answers, or reopened once PgBouncer dropped them (auth-service keeps its pool at its maximum), which waits for the
 * same. A pool whose connections are all lent out is waited on for this service's own holders;</li>
 * <li>or a step has waited on one path to the database (the primary's pool, or the standby's) for {@link #STALL_NANOS}
 * or longer and no step has finished on that path since it began: the path went silent while the lane's other threads
 * still serve requests another path answers (a killed primary while the standby answers the known devices' reads),
 * and the lane, short of the threads the silent path holds, refuses what they would have served. A busy database
 * keeps finishing steps on every path;</li>
 * <li>or a request step that reached the database failed as unavailable (its own call running out the guard's time
 * while it waited on the database counts too: the validation or statement the JDBC socket timeout cut off, plus the
 * wait for the pool, can outlast that time), and since then no step has succeeded while another thread of the lane
 * was idle and no step begun during the outage was still waiting: the requests refused while the lane drains the backlog the outage built (every device
 * retrying at once), and those refused while a read to a standby succeeds beside reads hanging on the primary, are
 * the outage's, not a sign that this service is too small.</li>
 * </ul>
 *
 * <p>A refusal is told at once, except in the moment before those: when the steps that would make the lane the
 * database's have each waited on it {@link #UNCLEAR_FROM_NANOS} or longer (twenty times a read) but not yet a stall,
 * and no step has finished for as long, or a step has waited that long on a path that has finished none since. A
 * database that just went silent looks like that for its first tenth of a second, and so does one that is slow for a
 * moment; a lane whose steps keep finishing beside long ones on the same path (a flood on a saturated CPU) does not.
 * That refusal is answered once the steps have waited a stall (at most 80 ms later, by {@link Later}), as the
 * database's if they are still waiting then, as it was refused otherwise.
 */
final class DatabaseAttribution implements Attribution {

    /** How long a step must have waited on the database to count as held by it. */
    static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    /** From how long a wait on the database a refusal's cause is unclear until the wait reaches a stall. */
    static final long UNCLEAR_FROM_NANOS = STALL_NANOS / 5;

    /** How long a step must have waited for its pooled connection to count as held by the database. */
    static final long ACQUIRING_STALL_NANOS = TimeUnit.SECONDS.toNanos(1);

    private final LongSupplier clock;
    private final Later later;
    /** The database lane whose request step runs on this thread, while it runs. */
    private static final ThreadLocal<DatabaseAttribution> STEP_OF = new ThreadLocal<>();

    /** Each thread's request step waiting on the database, from when and on which path (see {@link #mark}). */
    private final HeldSteps steps;
    private volatile boolean databaseFailing;

    DatabaseAttribution(int threads, LongSupplier clock, Later later) {
        this.clock = clock;
        this.later = later;
        this.steps = new HeldSteps(threads, clock, clock.getAsLong() - UNCLEAR_FROM_NANOS);
    }

    @Override
    public <T> CompletableFuture<T> tell(ServiceUnavailableException refusal) {
        if (databaseAtFault()) {
            return CompletableFuture.failedFuture(databaseDown());
        }
        long deciding = steps.deciding();
        // Steps still finishing around the long ones: a busy lane (a flood on a saturated CPU), not a silent
        // database; unless the long ones wait on a path that has answered none of them.
        long waited = Math.max(steps.silentFor(),
                steps.sinceLastFinish() < UNCLEAR_FROM_NANOS ? Long.MIN_VALUE : deciding);
        if (waited < UNCLEAR_FROM_NANOS) {
            return CompletableFuture.failedFuture(refusal);
        }
        CompletableFuture<T> answer = new CompletableFuture<>();
        later.after(STALL_NANOS - waited, () -> answer.completeExceptionally(told(refusal)));
        return answer;
    }

    @Override
    public ServiceUnavailableException told(ServiceUnavailableException refusal) {
        return databaseAtFault() ? databaseDown() : refusal;
    }

    @Override
    public ServiceUnavailableException expired() {
        return databaseAtFault() ? databaseDown() : ServiceUnavailableException.deadline();
    }

    @Override
    public void started(long at) {
        STEP_OF.set(this);
    }

    /**
     * The step running on this thread (if a database lane's) asks the pool for a connection; {@code databasePath}:
     * the wait is the database path's (see {@link PooledConnections#waitIsTheDatabasePaths}).
     */
    static void connectionWanted(boolean databasePath, Object path) {
        mark(databasePath ? 0 : ACQUIRING_STALL_NANOS - STALL_NANOS, path);
    }

    /**
     * The step running on this thread (if a database lane's) has its connection from {@code path} (its pool): its
     * statements wait from now on.
     */
    static void connectionTaken(Object path) {
        mark(0, path);
    }

    /** Whether the database lane whose step runs on this thread finds the database at fault (false off a lane). */
    static boolean databaseHoldsTheLane() {
        DatabaseAttribution lane = STEP_OF.get();
        return lane != null && lane.databaseAtFault();
    }

    /** Held on {@code path} from now on, counted as held once {@code STALL_NANOS + later} has passed. */
    private static void mark(long later, Object path) {
        DatabaseAttribution lane = STEP_OF.get();
        if (lane != null) {
            lane.steps.waiting(path, lane.clock.getAsLong() + later, later == 0, lane.databaseFailing);
        }
    }

    @Override
    public Throwable failed(Throwable thrown, boolean forRequest) {
        boolean heldByTheDatabase = forRequest && heldByTheDatabase();
        if (forRequest) {
            finished();
        }
        if (thrown instanceof Error) {
            return thrown;
        }
        RuntimeException failure = BackendFailures.classify(thrown);
        if (forRequest && failure instanceof ServiceUnavailableException unavailable) {
            if (unavailable.reason() == UnavailableReason.DEADLINE && heldByTheDatabase) {
                // The step's own call ran out its time (the guard's timeout) while waiting on the database: a
                // validation or a statement the database never answered, not a request this service was slow to take.
                failure = databaseDown();
            }
            if (((ServiceUnavailableException) failure).reason() == UnavailableReason.BACKEND_UNAVAILABLE) {
                databaseFailing = true;
            }
        }
        return failure;
    }

    /** Whether the step on this thread has waited on the database for a stall or longer (see {@link #mark}). */
    private boolean heldByTheDatabase() {
        return steps.waitedHere() >= STALL_NANOS;
    }

    @Override
    public void succeeded(boolean drained) {
        finished();
        // Not while a step that began in the outage still waits: the database still holds that thread (a connection
        // to the lost primary), and the lane, short of it, refuses what the new primary's first answers let in.
        if (drained && databaseFailing && !steps.anyFromAnOutage()) {
            databaseFailing = false;
        }
    }

    private void finished() {
        STEP_OF.remove();
        steps.finished();
    }

    private boolean databaseAtFault() {
        return databaseFailing || steps.deciding() >= STALL_NANOS || steps.silentFor() >= STALL_NANOS;
    }

    static ServiceUnavailableException databaseDown() {
        return ServiceUnavailableException.backendUnavailable("the database threads wait on a database that does not"
                + " answer", 1);
    }
}
