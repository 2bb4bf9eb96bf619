package io.deviceidentity.overload;

import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.function.LongSupplier;

/**
 * Decides whose doing a refusal of the database lane is: this service's overload (more requests than a healthy
 * database serves through the lane's threads) or the database's (it stopped answering, or failed). The answer names
 * it: {@code overload} sends an operator to this service's capacity, {@code backend_unavailable} to the database, and
 * in a failover every refusal must name the database.
 *
 * <p>The database is at fault when
 * <ul>
 * <li>more than half the threads hold steps that have waited on it for {@link #STALL_NANOS} or longer: a read takes
 * about a millisecond, a slowed one tens; this catches a database that went silent (a killed primary, a lock held
 * across the table) from the first fraction of a second, before any read has failed: the driver gives up on a silent
 * server only after its socket timeout, seconds later. The limit is above the longest pause this service causes itself
 * (a CFS-throttled pod stops for at most its quota period's remainder, under 100 ms), so a starved service is never
 * mistaken for a stalled database;</li>
 * <li>or a step that reached the database failed as unavailable, and no step has succeeded since with nothing left
 * waiting for a thread: the requests refused while the lane drains the backlog the outage built (every device
 * retrying at once) are the outage's, not a sign that this service is too small.</li>
 * </ul>
 */
final class DatabaseFaults {

    /** How long a step must have waited on the database to count as held by it. */
    static final long STALL_NANOS = TimeUnit.MILLISECONDS.toNanos(100);

    private final int threads;
    private final LongSupplier clock;
    /** When each thread's current step started: how long the database has held it. */
    private final Map<Thread, Long> runningSince = new ConcurrentHashMap<>();
    private volatile boolean failing;

    DatabaseFaults(int threads, LongSupplier clock) {
        this.threads = threads;
        this.clock = clock;
    }

    void started(Thread thread, long at) {
        runningSince.put(thread, at);
    }

    /** The step on {@code thread} succeeded; {@code drained}: no other step is waiting for a thread. */
    void succeeded(Thread thread, boolean drained) {
        runningSince.remove(thread);
        if (drained) {
            failing = false;
        }
    }

    /** The step on {@code thread} failed; {@code unavailable}: the database failed it, not a refusal of ours. */
    void failed(Thread thread, boolean unavailable) {
        runningSince.remove(thread);
        if (unavailable) {
            failing = true;
        }
    }

    boolean databaseAtFault() {
        if (failing) {
            return true;
        }
        long now = clock.getAsLong();
        int held = 0;
        for (long since : runningSince.values()) {
            if (now - since >= STALL_NANOS) {
                held++;
            }
        }
        return held * 2 > threads;
    }

    /** The answer to a request refused or expired while {@link #databaseAtFault()}. */
    static ServiceUnavailableException databaseDown() {
        return ServiceUnavailableException.backendUnavailable("the database threads wait on a database that does not"
                + " answer", 1);
    }
}
