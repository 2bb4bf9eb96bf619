package io.deviceidentity.overload;

import java.sql.SQLException;
import java.time.temporal.ChronoUnit;
import java.util.List;

import org.eclipse.microprofile.faulttolerance.exceptions.TimeoutException;

import io.smallrye.faulttolerance.api.Guard;

/**
 * The fault tolerance of one database method, defined once for all of them: a SmallRye Fault Tolerance circuit
 * breaker that opens only on a database failure, and a timeout. Each method builds its own in its bean's
 * constructor, named after it ({@code credential-finder}, {@code device-store-save}, ...), and runs its body
 * through {@link #call}. One guard per method rather than one for all: each breaker keeps its own state, so a failing
 * report query or import batch cannot open the circuit in front of a device's login or registration, and operators
 * keep the breaker names and the metrics' {@code method} tags they know (the guard's description is the Java method's
 * name).
 *
 * <p>Overload never opens a breaker: {@link ServiceUnavailableException} (overload and deadline refusals, including
 * a pool that had no connection to lend in time, see {@link PooledConnections}) and this guard's own timeout are
 * skipped, so "open" keeps meaning "database down" and is answered at once with {@code backend_unavailable}. A
 * database that hangs still opens it: the JDBC socket timeout (3 s) fires before the guard's timeout and surfaces as
 * a SQL failure.
 *
 * <p>No bulkhead: every guarded method runs on the database {@link Lane}, whose concurrency (by default the pool size)
 * is the one limit on concurrent database calls; Agroal's acquisition timeout backs it if the lane is set wider than
 * the pool.
 *
 * <p>Called in code, not applied with {@code @ApplyGuard}: in SmallRye Fault Tolerance 6.10.1 (Quarkus 3.33's), a
 * {@code Guard} applied declaratively keeps one metrics collector per invocation for good (its cache is keyed by a
 * new object each call), a leak of one object per database read, and its state gauge follows only the first call.
 */
public final class DatabaseGuard {

    /** One database call: a method body that only throws {@link SQLException} among checked exceptions. */
    @FunctionalInterface
    public interface Call<T> {
        T run() throws SQLException;
    }

    private final Guard guard;

    private DatabaseGuard(Guard guard) {
        this.guard = guard;
    }

    /**
     * The guard of {@code owner}'s method {@code method}; {@code breaker} names its circuit breaker
     * ({@code CircuitBreakerMaintenance}, logs), the method's qualified name tags its metrics.
     */
    public static DatabaseGuard of(DatabaseGuardConfig config, String breaker, Class<?> owner, String method) {
        return new DatabaseGuard(Guard.create()
                .withDescription(owner.getName() + "." + method)
                .withCircuitBreaker()
                .name(breaker)
                .requestVolumeThreshold(config.requestVolumeThreshold())
                .failureRatio(config.failureRatio())
                .delay(config.delay().toMillis(), ChronoUnit.MILLIS)
                .successThreshold(config.successThreshold())
                .skipOn(List.of(ServiceUnavailableException.class, TimeoutException.class))
                .done()
                .withTimeout()
                .duration(config.timeout().toMillis(), ChronoUnit.MILLIS)
                .done()
                .build());
    }

    /** Runs {@code call} under this guard; what it throws comes out unchanged, as do the guard's own refusals. */
    public <T> T call(Call<T> call) throws SQLException {
        try {
            return guard.call(call::run, anyResult());
        } catch (SQLException | RuntimeException e) {
            throw e;
        } catch (Exception e) {
            throw new IllegalStateException("a database call threw what it does not declare", e);
        }
    }

    /** The guard only asks whether the result is asynchronous; a database call's never is. */
    @SuppressWarnings("unchecked")
    private static <T> Class<T> anyResult() {
        return (Class<T>) Object.class;
    }
}
