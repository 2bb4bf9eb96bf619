package io.deviceidentity.auth.fastpath;

import java.sql.SQLException;
import java.time.Duration;

/**
 * The background writers' (verifiers, legacy upgrades) second chance at a write. Their one pooled connection breaks
 * whenever PostgreSQL or PgBouncer restarts or fails over, and the first statement after that fails; Agroal then
 * discards the connection (Quarkus installs its PostgreSQL exception sorter), so the same write a moment later runs
 * on a new one. Without it each such restart would lose the batch in hand: up to a hundred devices paying bcrypt once
 * more, in the storm a restart tends to bring. Only one more: a database that is down stays down longer than a
 * background write should wait, and a write given up costs one bcrypt per device, no more.
 */
public final class SecondAttempt {

    /** Long enough for a pool to have let go of a broken connection; short beside a verifier's write-max-wait. */
    static final Duration PAUSE = Duration.ofMillis(200);

    /** A write that may fail. */
    @FunctionalInterface
    public interface Write<T> {
        T run() throws SQLException;
    }

    private SecondAttempt() {
    }

    /**
     * Runs {@code write}; when it fails, runs it once more after {@link #PAUSE}. The second failure is thrown, with
     * the first attached as suppressed. The writes it is given are idempotent (an update of the same values, a
     * compare-and-set), so a first attempt that landed but failed to say so does no harm.
     */
    public static <T> T run(Write<T> write) throws SQLException {
        try {
            return write.run();
        } catch (SQLException | RuntimeException first) {
            pause();
            try {
                return write.run();
            } catch (SQLException | RuntimeException second) {
                second.addSuppressed(first);
                throw second;
            }
        }
    }

    private static void pause() {
        try {
            Thread.sleep(PAUSE.toMillis());
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        }
    }
}
